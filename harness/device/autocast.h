#pragma once
/// Note [Autocast rows]
/// A case with "autocast" (audit(autocast=...)) runs each row under its own device type's
/// autocast in the lower precision dtype, as `with torch.autocast(device.type, dtype)` around
/// the subject does, and compares it with the reference made outside autocast at the lower
/// precision's tolerance. Autocast wraps apply() alone: backward runs outside, as PyTorch
/// recommends. A device type that has no autocast here (meta; the simulated device where
/// LibTorch has no autocast key for it) skips its rows, saying why. LibTorch's two autocast
/// APIs (per device type in 2.x, per function in 1.13) live in two platform files that CMake
/// picks by series, the one place the version is read.

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <string>

namespace devparity {

/// Why `type` cannot run under autocast in `dtype` with this LibTorch; empty when it can.
std::string autocast_unavailable(c10::DeviceType type, c10::ScalarType dtype);

/// Autocast on for `type` in `dtype` on this thread until destroyed; the previous state and
/// dtype come back, and autocast's cast cache is cleared when the outermost scope ends.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType type, c10::ScalarType dtype);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType type_;
  bool was_enabled_;
  c10::ScalarType previous_dtype_;
};

}  // namespace devparity
