#pragma once
/// CUDA's grid_sampler_2d as nvcc compiles it: the `cuda_grid_sample` model
/// of CUDA's arithmetic on vdev (Note [CUDA's arithmetic on vdev]).
///
/// Note [CUDA's grid sampler]
/// grid_sample's CUDA kernel (aten/src/ATen/native/cuda/GridSampler.cu and
/// .cuh) computes in the input's dtype (float for half and bfloat16), and
/// nvcc fuses a * b + c where the CPU's vectorised kernel rounds the product
/// first, so the two differ in the last bits, and a nearest pick or a
/// rounding back to uint8 that sits near a tie flips. Per output pixel:
///  - the source coordinate: fma(coord + 1, size, -1) / 2 (align_corners:
///    ((coord + 1) / 2) * (size - 1), nothing to fuse); border clamps to
///    [0, size - 1]; reflection reflects |coord - min| by fmod and floor of
///    the quotient, then clamps; a coordinate not finite or outside int's
///    range becomes -100 (out of bounds);
///  - nearest: the pixel at nearbyint (half to even), 0 outside;
///  - bilinear: the corners floor(x), floor(x) + 1; weights
///    (x1 - x) * (y1 - y) and its three siblings, each difference and the
///    product rounded; per channel acc = 0, then acc = fma(value, weight, acc)
///    for the NW, NE, SW and SE corners that are inside, in that order;
///  - bicubic: t = x - floor(x); Keys' coefficients (A = -0.75, constants
///    folded) of t + 1, t, 1 - t and (1 - t) + 1 with every a * b + c fused
///    (as in Note [CUDA's float resize]); each of the four rows is
///    fma(x3, c3, fma(x2, c2, fma(x0, c0, x1 * c1))) over taps read with the
///    padding applied to each tap's position, then the same over the rows.
/// Verified on the 262 affine, rotate and perspective vectors of
/// ../shared/cuda-goldens that reach grid_sample (nearest and bilinear, zeros
/// padding, align_corners false: all torchvision uses), bit for bit with the
/// grid's products as `sgemm_fma` computes them (Note [CUDA's SGEMM order];
/// tests/vdev/cuda_goldens_test.cpp, tools/cuda_warp_orders.py);
/// bicubic, border, reflection and align_corners follow the same source and
/// contraction rules, unchecked against a GPU.

#include "harness/vdev/kernel_replacement.h"

#include <string>
#include <vector>

namespace devparity::vdev::cuda_grid {

/// grid_sampler_2d's results as CUDA computes them (a ReplacementKernel);
/// arguments the kernel would refuse go to the CPU's kernel, which says why.
std::vector<at::Tensor> grid_sampler_2d(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                        const CpuKernel& cpu);

/// The ops it models.
const std::vector<std::string>& ops();

}  // namespace devparity::vdev::cuda_grid
