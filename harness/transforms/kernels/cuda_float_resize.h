#pragma once
/// LibTorch's CUDA float32 interpolate kernels as nvcc compiles them
/// (internal to harness/transforms).
///
/// Note [CUDA's float resize]
/// CUDA has no uint8 resize: torchvision converts uint8 to float32 (values
/// 0..255), interpolates, clamps (bicubic), rounds half to even and casts
/// back. The float32 kernels (aten/src/ATen/native/cuda/UpSample.cuh,
/// UpSampleBilinear2d.cu, UpSampleBicubic2d.cu) compute in float32, and nvcc
/// contracts a * b + c into one fused multiply-add wherever it can, which the
/// CPU's kernels do not do in the same places; the float results differ in
/// the last bits and their rounding to uint8 then flips at a few pixels. The
/// model, per axis (an axis whose size does not change is the identity):
///  - the scale in / out in float32; the source index
///    fma(scale, dst + 0.5, -0.5), not clamped for bicubic, clamped at 0 for
///    bilinear; dst * scale with align_corners;
///  - bilinear: i = trunc(src), l1 = src - i, l0 = 1 - l1; a row or column is
///    fma(l0, x[i], l1 * x[i + 1]) (the second product rounded first);
///  - bicubic: t = src - floor(src); Keys' coefficients (A = -0.75) of t + 1,
///    t, 1 - t, 2 - t as ((A + 2) x - (A + 3)) x x + 1 and
///    ((A x - 5A) x + 8A) x - 4A with every a * b + c fused; the sum
///    fma(x3, c3, fma(x2, c2, fma(x0, c0, x1 * c1)));
///  - antialias (Pillow's filters, a = -0.5 for bicubic): support = size / 2,
///    times the scale when it is >= 1; centre = scale (o + 0.5) is fused into
///    each of its uses: xmin = trunc(fma(scale, o + 0.5, -support) + 0.5),
///    the end trunc(fma(scale, o + 0.5, support) + 0.5), and
///    xmin - centre = fma(-scale, o + 0.5, xmin); weights
///    filter(((j + xmin - centre) + 0.5) / scale) (1 / scale rounded from
///    float64), their float32 sum in order, each divided by it; the sum
///    x0 w0, then fma(x_j, w_j, sum) in order;
///  - the W pass first, its float32 result the H pass's input.
/// Verified bit for bit on the 158 float32 resize and resized_crop vectors
/// of ../shared/cuda-goldens (an H200, torch 2.11): every one.

#include "harness/transforms/kernels/resize_config.h"

#include <ATen/core/Tensor.h>

namespace devparity::resample {

/// The configurations the model covers: bilinear and bicubic, with or
/// without antialias and align_corners.
bool cuda_float_resize_has(const ResizeConfig& config);

/// `x` (float32 NCHW, finite) resized as the CUDA kernels compute it, on x's
/// device; float32.
at::Tensor cuda_float_resize(const at::Tensor& x, const ResizeConfig& config);

}  // namespace devparity::resample
