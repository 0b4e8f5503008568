#include "harness/base/registration.h"

#include <mutex>

namespace devparity {
namespace {

std::mutex g_errors_mutex;
std::vector<std::string>& registration_errors() {
  static std::vector<std::string> errors;
  return errors;
}

}  // namespace

void record_registration_error(const std::string& message) noexcept {
  try {
    std::lock_guard<std::mutex> lock(g_errors_mutex);
    registration_errors().push_back(message);
  } catch (...) {
  }
}

std::vector<std::string> take_registration_errors() {
  std::lock_guard<std::mutex> lock(g_errors_mutex);
  std::vector<std::string> out;
  out.swap(registration_errors());
  return out;
}

}  // namespace devparity
