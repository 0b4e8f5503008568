#pragma once
/// CUDA's order of sort and topk results: the `cuda_sort` model of CUDA's
/// arithmetic on vdev (Note [CUDA's arithmetic on vdev]).
///
/// Note [CUDA's sort order]
/// Equal keys come out of a sort in an order the algorithm defines, and
/// PyTorch's CUDA sort picks its algorithm by the slice's length alone
/// (Sort.cpp, Sort.cu, SortUtils.cuh, SortStable.cu): a slice of at most 32
/// that is not asked to be stable goes through a bitonic network of 16
/// threads over 32 slots (the last n padded as invalid, sorting to the end),
/// whose compare-and-swap exchanges equal keys at every step of the final
/// merge; at most 128, cub's WarpMergeSort, stable, NaN after every number;
/// longer, cub's radix sorts, stable and ordered by the key's bits, so -0.0
/// comes before +0.0 (the CPU's kernel has them equal). The CPU's sort that
/// is not asked to be stable is introsort: its ties come out in another
/// order for n > 16. topk (TensorTopK.cu) selects by radix order (-0.0 below
/// +0.0, every NaN largest), takes the values strictly beyond the k-th in
/// index order, then equal ones from the lowest index, and sorts those k
/// through the same in-place sort (not stable), or, for at most ten slices
/// of 100,000 or more, sorts the whole slice and keeps the first k. The
/// model follows that source (PyTorch 2.x with CUDA >= 11.6); it is not yet
/// checked against a GPU's outputs (tools/gpu/cuda_model_vectors.py writes
/// the vectors). A NaN sorts as the largest key whatever its sign bit: the
/// CPU makes negative NaNs (0/0 on x86) where CUDA makes positive ones, and
/// the radix sort would otherwise put them first, a false alarm.

#include "harness/vdev/kernel_replacement.h"

#include <string>
#include <vector>

namespace devparity::vdev::cuda_sort {

/// The permutation CUDA's sort gives each slice of `x` along `dim`
/// (sort's `indices`), for any dtype its CUDA kernel takes.
at::Tensor order(const at::Tensor& x, int64_t dim, bool descending, bool stable);

/// Whether a call of sort or topk is one the model computes (real dtypes).
bool covers(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args);

/// sort's and topk's results in CUDA's order (a ReplacementKernel).
std::vector<at::Tensor> sort(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                             const CpuKernel& cpu);

/// The ops it models.
const std::vector<std::string>& ops();

}  // namespace devparity::vdev::cuda_sort
