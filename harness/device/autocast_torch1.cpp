// Note [Autocast rows], LibTorch 1.13: a setter pair per device type, for CUDA and the CPU
// (XPU's is not a devparity device). Its dispatcher has no autocast key for PrivateUse1, so the
// simulated device has no autocast here, as torch.autocast in its Python takes 'cuda' and 'cpu'.
#include "harness/device/autocast.h"

#include <ATen/autocast_mode.h>
#include <fmt/format.h>

namespace devparity {

std::string autocast_unavailable(c10::DeviceType type, c10::ScalarType dtype) {
  if (type == c10::DeviceType::CUDA) return "";
  if (type != c10::DeviceType::CPU) {
    return fmt::format("this LibTorch has autocast for cuda and cpu alone, not for the {} device type",
                       c10::DeviceTypeName(type, true));
  }
  // Its CPU autocast refuses dtypes it does not support when they are set (bfloat16 alone):
  // asked, not assumed.
  const auto previous = at::autocast::get_autocast_cpu_dtype();
  try {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } catch (const std::exception& e) {
    const std::string text = e.what();
    return "this LibTorch's CPU autocast refuses " + std::string(c10::toString(dtype)) + ": " +
           text.substr(0, text.find('\n'));
  }
  at::autocast::set_autocast_cpu_dtype(previous);
  return "";
}

// The dtype is set before autocast is enabled: a refused dtype throws with nothing changed.
AutocastScope::AutocastScope(c10::DeviceType type, c10::ScalarType dtype) : type_(type) {
  if (type == c10::DeviceType::CUDA) {
    was_enabled_ = at::autocast::is_enabled();
    previous_dtype_ = at::autocast::get_autocast_gpu_dtype();
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(true);
  } else {
    was_enabled_ = at::autocast::is_cpu_enabled();
    previous_dtype_ = at::autocast::get_autocast_cpu_dtype();
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(true);
  }
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  if (type_ == c10::DeviceType::CUDA) {
    at::autocast::set_enabled(was_enabled_);
    at::autocast::set_autocast_gpu_dtype(previous_dtype_);
  } else {
    at::autocast::set_cpu_enabled(was_enabled_);
    at::autocast::set_autocast_cpu_dtype(previous_dtype_);
  }
}

}  // namespace devparity
