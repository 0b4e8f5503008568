#pragma once
/// CUDA's bilinear and bicubic interpolate as nvcc compiles it: the
/// `cuda_interpolate` model of CUDA's arithmetic on vdev (Note [CUDA's
/// arithmetic on vdev]).
///
/// The arithmetic is Note [CUDA's float resize]'s (harness/transforms/kernels/
/// cuda_float_resize.h: the catalog's device-agnostic copy, which the tests
/// hold this one to bit for bit), computed here per output pixel as the
/// kernels do: upsample_bilinear2d and upsample_bicubic2d (the source index
/// fma(scale, dst + 0.5, -0.5), the rows' and the columns' sums fused), and
/// the antialiased _upsample_{bilinear,bicubic}2d_aa (Pillow's filters over
/// each output's span, weights normalised by their float sum, rows summed
/// first). The scale is the op's: in / out in the compute dtype, or 1 / the
/// given scale factor rounded from float64; align_corners (in - 1) / (out - 1).
/// float32 and float64 compute in their own dtype; float16 and bfloat16 in
/// float32, rounded once at the end (without antialias; with it, CUDA keeps
/// half-precision weights, and the CPU's kernel runs). Antialias with
/// align_corners also runs the CPU's kernel.

#include "harness/vdev/kernel_replacement.h"

#include <string>
#include <vector>

namespace devparity::vdev::cuda_upsample {

/// The results of interpolate's op (any of ops()) as CUDA computes them (a
/// ReplacementKernel); calls outside the model run the CPU's kernel.
std::vector<at::Tensor> interpolate(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                    const CpuKernel& cpu);

/// The ops it models: upsample_bilinear2d, upsample_bicubic2d and their
/// antialiased forms, each with .vec and .out.
const std::vector<std::string>& ops();

}  // namespace devparity::vdev::cuda_upsample
