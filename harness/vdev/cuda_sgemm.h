#pragma once
/// cuBLAS's float32 products of a small depth: the `sgemm_fma` model of
/// CUDA's arithmetic on vdev (Note [CUDA's arithmetic on vdev]).
///
/// Note [CUDA's SGEMM order]
/// Each output of a cuBLAS SGEMM kernel is one thread's accumulator: 0, then
/// acc = fma(a_k, b_k, acc) for k in order, where the CPU's BLAS rounds each
/// product and adds (or vectorises over another axis). For a depth K no
/// larger than a kernel's k-tile no split of K is possible, so the order
/// holds whatever kernel cuBLAS picks; the model covers mm and bmm of
/// float32 with K <= kMaxDepth (torchvision's and Kornia's affine grids and
/// homographies: K = 3 and 4). Checked bit for bit on the GPU's own affine,
/// rotate and perspective grids (K = 3) of ../shared/cuda-goldens through
/// the grid sampler's model (Note [CUDA's grid sampler]). Deeper products,
/// float64, addmm's and baddbmm's added term (cuBLAS's epilogue) and TF32
/// (the tf32_matmul model, which comes first while TF32 is allowed) keep
/// the CPU's arithmetic or their own model.

#include "harness/vdev/kernel_replacement.h"

#include <string>
#include <vector>

namespace devparity::vdev::cuda_sgemm {

/// The deepest product modelled.
constexpr int64_t kMaxDepth = 4;

/// Whether the call (mm or bmm and their out= forms) is one the model covers.
bool covers(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args);

/// Its results in cuBLAS's order (a ReplacementKernel).
std::vector<at::Tensor> product(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                const CpuKernel& cpu);

/// The ops it models.
const std::vector<std::string>& ops();

}  // namespace devparity::vdev::cuda_sgemm
