#pragma once
/// How an input lies in memory on its device: the layouts a case may ask for
/// and the one function that lays an input out (execute() calls it after the
/// copy, so the device's kernels see the strides).

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace devparity {

/// contiguous, channels_last, strided (a view of every other column of a
/// tensor twice as wide).
const std::vector<std::string>& input_layouts();

/// `x` (already on its device) laid out as `layout` says; made on x's device.
at::Tensor apply_layout(const at::Tensor& x, const std::string& layout);

}  // namespace devparity
