#pragma once
/// Seeded input images, generated on the CPU. The bytes depend only on the
/// recipe, the dtype and the seed, never on the device or the LibTorch version.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace devparity {

/// How to make one input image.
struct InputRecipe {
  /// noise | ramp | checkerboard | constant | edges
  std::string pattern = "noise";
  /// NCHW; the default is odd-sized on purpose (torchvision's 17x11).
  std::vector<int64_t> shape = {1, 3, 17, 11};
  /// constant: the value as a fraction of the dtype's range, in [0, 1].
  double value = 0.5;
  /// checkerboard: the side of one cell, in pixels.
  int64_t cell = 4;

  /// "noise-1x3x17x11": names the input in result ids.
  std::string label() const;
};

/// The pattern names make_input() knows.
const std::vector<std::string>& input_patterns();

/// Makes the image on the CPU, contiguous. uint8 values cover 0..255, floating
/// values [0, 1]. Throws InputError for an unknown pattern, a bad shape or an
/// unsupported dtype.
at::Tensor make_input(const InputRecipe& recipe, c10::ScalarType dtype, uint64_t seed);

}  // namespace devparity
