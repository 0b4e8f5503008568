#pragma once
/// Registration from user code at static-initialisation time (the
/// DEVPARITY_REGISTER_* macros of transforms, checks and reporters): it must
/// never throw, since it may run while a plugin loads, where an exception
/// would end the process. A problem (a null entry, a name already taken) is
/// recorded instead and reported by whoever loads the plugin.

#include <string>
#include <vector>

namespace devparity {

/// Runs `add` (a registry's add); returns false, recording what it threw,
/// when it throws.
template <typename Add>
bool register_noexcept(Add&& add) noexcept;

/// Records a registration problem.
void record_registration_error(const std::string& message) noexcept;

/// Problems recorded since the last call; clears them.
std::vector<std::string> take_registration_errors();

template <typename Add>
bool register_noexcept(Add&& add) noexcept {
  try {
    add();
    return true;
  } catch (const std::exception& e) {
    record_registration_error(e.what());
    return false;
  } catch (...) {
    record_registration_error("registration threw a non-standard exception");
    return false;
  }
}

}  // namespace devparity

#define DEVPARITY_CONCAT_INNER(a, b) a##b
#define DEVPARITY_CONCAT(a, b) DEVPARITY_CONCAT_INNER(a, b)

/// Runs the registration call `...` (a register_*() returning bool) at
/// static initialisation: the body of every DEVPARITY_REGISTER_* macro.
#define DEVPARITY_REGISTER_AT_STARTUP(...)                                          \
  namespace {                                                                       \
  [[maybe_unused]] const bool DEVPARITY_CONCAT(devparity_registered_, __LINE__) = \
      __VA_ARGS__;                                                                  \
  }
