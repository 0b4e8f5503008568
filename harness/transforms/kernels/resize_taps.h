#pragma once
/// Tap tables of resize's modes (Note [resize semantics]), one axis at a time,
/// built on the device of `coords` (a float64 TensorOptions) from ops meta runs.

#include "harness/transforms/kernels/resize_config.h"
#include "harness/transforms/kernels/resize_engine.h"

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace devparity::resample {

/// ATen's area_pixel_compute_scale<T> for a size-given resize: (in - 1) /
/// (out - 1) with align_corners, else in / out, in float32 when
/// `single_precision`, else float64.
double axis_scale(int64_t in, int64_t out, bool align_corners, bool single_precision);

/// Keys' cubic convolution kernel of parameter a, evaluated as ATen's
/// cubic_convolution1/2 do.
at::Tensor cubic_filter(const at::Tensor& x, double a);

/// The triangle (bilinear) kernel max(1 - |x|, 0).
at::Tensor linear_filter(const at::Tensor& x);

/// Pillow's antialiasing filter for a `scale` = in / out: support widened by
/// the downscale factor, window clipped to the image, weights normalised.
TapTable antialias_taps(int64_t in, int64_t out, double scale, int64_t interp_size, bool cubic,
                        const at::TensorOptions& coords);

/// The taps of `config`'s mode for one axis; `single_precision` rounds the
/// scale to float32 as ATen's float32 kernels do.
TapTable axis_taps(const ResizeConfig& config, int64_t in, int64_t out, bool single_precision,
                   const at::TensorOptions& coords);

}  // namespace devparity::resample
