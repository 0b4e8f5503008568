#pragma once
/// Building blocks shared by the colour, filter and geometry families
/// (internal to harness/transforms). Every function makes its tensors on its
/// input's device and uses only ops that LibTorch 1.13's meta device runs:
/// no at::where, abs, flip, index_select, logical_not or conv2d.

#include "harness/transforms/kernels/modes.h"

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

namespace devparity::image {

/// 255 for uint8, 1 for floating dtypes.
double bound_of(const at::Tensor& x);

/// at::where(mask, a, b) from masked_fill: a NaN in the branch not taken
/// does not leak into the result.
at::Tensor choose(const at::Tensor& mask, const at::Tensor& a, const at::Tensor& b);

/// A (1, C, 1, 1) tensor of `values` with `options`, filled on its device
/// (at::tensor would build it on the host first).
at::Tensor per_channel(const std::vector<double>& values, const at::TensorOptions& options);

/// torchvision's to_dtype(scale=True) into float32: uint8 / 255; floats are
/// converted to float32.
at::Tensor to_unit_float(const at::Tensor& x);

/// torchvision's to_dtype(scale=True) back to `dtype`: for uint8,
/// truncate(y * (255 + 1 - 1e-3)), which maps [0, 1] onto 0..255 in equal
/// bins; floats are converted.
at::Tensor from_unit_float(const at::Tensor& y, c10::ScalarType dtype);

/// torchvision's _blend: clamp(a * ratio + b * (1 - ratio), 0, bound), back
/// to a's dtype (uint8 truncated). `b` is floating and broadcasts.
at::Tensor blend(const at::Tensor& a, const at::Tensor& b, double ratio);

/// 0.2989 R + 0.587 G + 0.114 B as an (N, 1, H, W) tensor, floating (uint8
/// inputs give float32, not rounded).
at::Tensor luminance(const at::Tensor& rgb);

/// RGB in [0, 1] to HSV with every component in [0, 1] (torchvision's
/// _rgb_to_hsv; a grey pixel has hue and saturation 0).
at::Tensor rgb_to_hsv_unit(const at::Tensor& rgb);

/// The inverse of rgb_to_hsv_unit (hue taken modulo 1).
at::Tensor hsv_unit_to_rgb(const at::Tensor& hsv);

/// Kornia's rgb_to_ycbcr on RGB in [0, 1]: Y = .299 R + .587 G + .114 B,
/// Cb = (B - Y) .564 + .5, Cr = (R - Y) .713 + .5.
at::Tensor rgb_to_ycbcr(const at::Tensor& rgb);

/// Kornia's ycbcr_to_rgb: R = Y + 1.403 Cr', G = Y - .714 Cr' - .344 Cb',
/// B = Y + 1.773 Cb' (Cb' = Cb - .5, Cr' = Cr - .5), clamped to [0, 1].
at::Tensor ycbcr_to_rgb(const at::Tensor& ycbcr);

/// x padded by (top, bottom, left, right) pixels, each >= 0, with `mode`
/// reflect | symmetric | replicate | circular | constant (`fill`, in x's
/// units). Positions are gathered on the device.
at::Tensor pad(const at::Tensor& x, int64_t top, int64_t bottom, int64_t left, int64_t right,
               Border mode, double fill = 0.0);

/// sum_k weights[k] * x shifted by offsets[k] (dy, dx), on the H x W window
/// that every shift keeps inside the image: a small stencil without conv2d.
/// The output is (H - 2 * ry) x (W - 2 * rx) for shifts within ry, rx
/// (given, or the largest shifts when negative).
at::Tensor stencil(const at::Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& offsets,
                   const std::vector<double>& weights, int64_t ry = -1, int64_t rx = -1);

}  // namespace devparity::image
