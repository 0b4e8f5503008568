// Note [Autocast rows], LibTorch 2.x: one API for every device type.
#include "harness/device/autocast.h"

#include <ATen/autocast_mode.h>
#include <fmt/format.h>

namespace devparity {

std::string autocast_unavailable(c10::DeviceType type, c10::ScalarType /*dtype*/) {
  if (at::autocast::is_autocast_available(type)) return "";
  return fmt::format("LibTorch has no autocast for the {} device type", c10::DeviceTypeName(type, true));
}

AutocastScope::AutocastScope(c10::DeviceType type, c10::ScalarType dtype)
    : type_(type),
      was_enabled_(at::autocast::is_autocast_enabled(type)),
      previous_dtype_(at::autocast::get_autocast_dtype(type)) {
  at::autocast::set_autocast_dtype(type, dtype);
  at::autocast::set_autocast_enabled(type, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(type_, was_enabled_);
  at::autocast::set_autocast_dtype(type_, previous_dtype_);
}

}  // namespace devparity
