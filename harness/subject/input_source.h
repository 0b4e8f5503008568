#pragma once
/// Where a trial's images come from, as the layers below the suite see it.
/// The suite's input recipes (suite/inputs.h: patterns, image files, tensors
/// registered from Python) implement it, so that a subject's extra tensor
/// arguments and the checks that need more images like the trial's make them
/// without knowing case files, patterns or files.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace devparity {

class InputSource {
 public:
  virtual ~InputSource() = default;
  /// The image for `seed` as `dtype`, on the CPU, contiguous: equal
  /// arguments give equal bytes on every machine. Throws InputError for a
  /// dtype the source cannot make.
  virtual at::Tensor make(c10::ScalarType dtype, uint64_t seed) const = 0;
  /// The same source at `shape` (NCHW) where it makes images of any shape (a
  /// pattern); an image of fixed shape (a file, a registered tensor) returns
  /// itself.
  virtual std::shared_ptr<const InputSource> with_shape(const std::vector<int64_t>& shape) const = 0;
};

}  // namespace devparity
