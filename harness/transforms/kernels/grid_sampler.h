#pragma once
/// Point sampling of an image at arbitrary source coordinates: the engine
/// behind rotate, affine, perspective and elastic (internal to
/// harness/transforms). Semantics are grid_sample's with align_corners =
/// false, in pixel units: pixel (i, j) has its centre at (y, x) = (i, j).
///
///   nearest:  the pixel at round-half-to-even(x, y)
///   bilinear: the four neighbours weighted by the fractional parts
///   bicubic:  4x4 neighbours, Keys' cubic convolution with A = -0.75
///   padding:  zeros (reads outside are 0) | border (coordinates clamped to
///             the image before interpolating) | reflection (reflected about
///             the outer pixel edges, -0.5 and size - 0.5, then clamped)
///
/// Reads are gathers from the flattened image with an index made on the
/// device (no grid_sampler: LibTorch 1.13 has no meta kernel for it), so the
/// whole path runs on meta too. Interpolation runs in the coordinates'
/// floating dtype.

#include "harness/transforms/kernels/modes.h"

#include <ATen/core/Tensor.h>

#include <vector>

namespace devparity::sampler {

/// `x` (N, C, H, W floating) sampled at `sx`, `sy` (N or 1, Ho, Wo, x's
/// dtype, in source pixel coordinates). Returns (N, C, Ho, Wo).
at::Tensor sample(const at::Tensor& x, const at::Tensor& sx, const at::Tensor& sy,
                  Interpolation interpolation, Padding padding);

/// torchvision's _apply_grid_transform around sample(): uint8 runs in
/// float32 and is rounded back (half to even); with zeros padding, the area
/// that came from outside the image is blended towards `fill` (per channel,
/// or one for all; empty for plain zeros) by a sampled coverage mask, which
/// nearest thresholds at 0.5.
at::Tensor warp(const at::Tensor& image, const at::Tensor& sx, const at::Tensor& sy,
                Interpolation interpolation, Padding padding, const std::vector<double>& fill);

/// The floating dtype warp() computes in for `image`.
c10::ScalarType compute_dtype(const at::Tensor& image);

}  // namespace devparity::sampler
