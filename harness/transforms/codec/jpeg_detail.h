#pragma once
/// The JPEG codec's numeric pieces, exposed for tests that check them against
/// the spec's numbers (transforms/codec/jpeg_codec.cpp).

#include <ATen/core/Tensor.h>

namespace devparity::jpeg_detail {

/// s(q) = dfloor(q < 50 ? 5000 / q : 200 - 2q), per sample.
at::Tensor quality_scale(const at::Tensor& quality);
/// dfloor(softclip((QT s + 50) / 100, 1, 255)), (B, 1, 8, 8).
at::Tensor effective_qt(const at::Tensor& table, const at::Tensor& scale);
/// The soft clip with scale 0.02.
at::Tensor soft_clip(const at::Tensor& x, double lo, double hi);
/// floor(x) + (x - 0.5 - floor(x))^3.
at::Tensor diff_floor(const at::Tensor& x);
/// round_half_even(x) + (x - round(x))^3.
at::Tensor diff_round(const at::Tensor& x);
/// The 8x8 DCT of (..., 8, 8) blocks of pixel values (128 subtracted inside).
at::Tensor dct(const at::Tensor& blocks);

}  // namespace devparity::jpeg_detail
