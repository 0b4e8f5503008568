#pragma once
/// The reference resampling functions behind the resize and blur families,
/// for transforms that compose them (rescale, the JPEG codec). Tensor in,
/// tensor out, on the input's device; the transforms add parameter parsing.

#include "harness/transforms/kernels/resize_config.h"
#include "harness/transforms/kernels/resize_engine.h"

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

namespace devparity {

/// resize with LibTorch interpolate semantics (Note [resize semantics]).
at::Tensor resize_image(const at::Tensor& x, const ResizeConfig& config,
                        resample::Uint8Path path = resample::Uint8Path::kFixedPoint);

/// Kornia's rescale: output size (int(H * fy), int(W * fx)); with antialias
/// and a downscale, first a Gaussian blur with sigma_i = max((f_i - 1) / 2,
/// 0.001) for f = (H / h, W / w) and kernel size int(max(4 sigma_i, 3)) made
/// odd (reflect border); then resize without LibTorch's own antialias. uint8
/// goes through both stages in fixed point.
at::Tensor rescale_image(const at::Tensor& x, double fy, double fx,
                         Interpolation interpolation, bool antialias, bool align_corners);

/// The output size rescale_image() gives for an H x W input.
std::pair<int64_t, int64_t> rescaled_size(int64_t height, int64_t width, double fy, double fx);

/// Kornia's gaussian_blur2d: odd kernel sizes, one (sigma_y, sigma_x) pair or
/// one per sample, border reflect | replicate | constant | circular.
at::Tensor gaussian_blur(const at::Tensor& x, int64_t ky, int64_t kx,
                         const std::vector<std::pair<double, double>>& sigma,
                         Border border = Border::kReflect);

}  // namespace devparity
