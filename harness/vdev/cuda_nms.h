#pragma once
/// torchvision's CUDA nms: the `cuda_nms` model of CUDA's arithmetic on
/// vdev (Note [CUDA's arithmetic on vdev]), the first model of a library's
/// own CUDA kernel.
///
/// Note [torchvision's CUDA nms]
/// torchvision/csrc/ops/cuda/nms_kernel.cu differs from its CPU kernel in
/// three ways, each a box kept on one device and dropped on the other:
/// the scores are ordered by CUDA's sort, not asked to be stable (Note
/// [CUDA's sort order]: ties among at most 32 boxes in the bitonic
/// network's order, the CPU's introsort's otherwise); the IoU threshold
/// reaches the kernel as a float, so an IoU equal to float(threshold) where
/// that rounds up (0.3 -> 0.30000001) is kept, where the CPU compares in
/// double and drops it; and devIoU's `inter / (Sa + Sb - inter)` in the
/// accumulate type (float for half and float) is contracted by nvcc into
/// fma(-w, h, fma(dxa, dya, Sb)), a reading of NVVM's contraction rules
/// (aggressive FMA fusion on NVPTX) not yet checked on a GPU
/// (tools/gpu/cuda_model_vectors.py writes the vectors). The greedy pass
/// over the sorted boxes is the host loop's.

#include "harness/vdev/kernel_replacement.h"

#include <string>
#include <vector>

namespace devparity::vdev::cuda_nms {

/// Whether the call is one the model computes (boxes N x 4 and scores N of
/// float, double or half on the host).
bool covers(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args);

/// nms's kept indices as CUDA's kernel gives them (a ReplacementKernel).
std::vector<at::Tensor> nms(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                            const CpuKernel& cpu);

/// The ops it models.
const std::vector<std::string>& ops();

}  // namespace devparity::vdev::cuda_nms
