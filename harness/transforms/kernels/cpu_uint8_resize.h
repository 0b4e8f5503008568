#pragma once
/// LibTorch's CPU uint8 resize, as torchvision's v2 resize runs it on the CPU
/// (internal to harness/transforms).
///
/// Note [LibTorch's CPU uint8 resize]
/// Since PyTorch 2.1 bilinear and bicubic interpolate on uint8 run natively on
/// the CPU (UpSampleKernel.cpp, the separable "aa" kernels, also without
/// antialias), and CUDA runs them through float. Per axis:
///  - weights in float64: antialiased, Pillow's normalised filter; otherwise
///    interpolate's taps around floor(src) (src rounded to float32 for the
///    floor), the taps that fall outside the image folded onto the edge
///    pixel in tap order, not normalised; bicubic a = -0.5 with antialias,
///    -0.75 without;
///  - precision p: the first p with round(max weight * 2^(p+1)) >= 2^15 (at most 22),
///    the max taken over every partial sum of a folded weight;
///  - int16 weights round(w * 2^p), half away from zero;
///  - out = clamp((2^(p-1) + sum pixel * weight) >> p, 0, 255).
/// The horizontal pass runs first and is stored as uint8; then the vertical
/// pass; an axis whose size does not change is skipped. The uint8
/// intermediate and the 15-bit weights make it differ from one rounding of
/// the exact value (fixed_point, and the float path of CUDA) by +-1 away from
/// ties, and by more where bicubic overshoot is clipped between the passes.
/// Integers are carried in float64 (exact: |sums| < 2^31).

#include "harness/transforms/kernels/resize_config.h"

#include <ATen/core/Tensor.h>

namespace devparity::resample {

/// The modes the CPU kernel has a uint8 path for (bilinear, bicubic).
bool cpu_kernel_has(Interpolation mode);

/// `x` (uint8 NCHW) resized as LibTorch's CPU uint8 kernel does. Notes its
/// final value, the value without the intermediate rounding and the weights'
/// error per element (Note [Intermediate rounding]).
at::Tensor cpu_uint8_resize(const at::Tensor& x, const ResizeConfig& config);

}  // namespace devparity::resample
