// vdev's own models of CUDA's arithmetic (Note [CUDA's arithmetic on vdev]
// in vdev/cuda_arithmetic.h).
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/cuda_grid_sampler.h"
#include "harness/vdev/cuda_nms.h"
#include "harness/vdev/cuda_sgemm.h"
#include "harness/vdev/cuda_sort.h"
#include "harness/vdev/cuda_upsample.h"
#include "harness/vdev/tf32.h"

#include <ATen/Context.h>

namespace devparity::vdev::cuda_arithmetic {

std::vector<Model> builtin_models() {
  std::vector<Model> all;
  // cuBLAS's gemms read TF32 once PyTorch allows it (allowTF32CuBLAS: the
  // flag, or set_float32_matmul_precision "high"/"medium"); gemv and dot
  // (mv, addmv, dot: matmul's vector cases) have no tensor-core path.
  all.push_back({"tf32_matmul",
                 "matrix products (mm, bmm, addmm, addbmm, baddbmm: matmul, linear, einsum and tensordot reach them) "
                 "read float32 inputs rounded to TF32 (10 mantissa bits) while the process allows TF32 matmuls, as "
                 "cuBLAS's tensor-core kernels do on Ampere and later; accumulation stays float32; mv and dot keep "
                 "float32, as cuBLAS's gemv does",
                 tf32::matmul_ops(),
                 "torch.backends.cuda.matmul.allow_tf32",
                 [] { return at::globalContext().allowTF32CuBLAS(); },
                 tf32::matmul});
  // Without TF32, small float32 products in
  // cuBLAS's order (Note [CUDA's SGEMM order]).
  all.push_back({"sgemm_fma",
                 "float32 mm and bmm of depth K <= 4 (affine grids, homographies) accumulate as cuBLAS's SGEMM "
                 "kernels do: fma(a_k, b_k, acc) in k order from 0; bit for bit with the GPU's affine, rotate and "
                 "perspective grids of the shipped CUDA goldens",
                 cuda_sgemm::ops(),
                 "",
                 nullptr,
                 cuda_sgemm::product,
                 cuda_sgemm::covers});
  all.push_back({"cuda_grid_sample",
                 "grid_sample (grid_sampler_2d) as nvcc compiles CUDA's kernel: the source coordinate "
                 "fma(g + 1, size, -1) / 2, bilinear sums fma(value, weight, acc) corner by corner, nearest at "
                 "nearbyint, bicubic with Keys' coefficients fused; bit for bit with the 262 warps of the shipped "
                 "CUDA goldens that sample (nearest, bilinear)",
                 cuda_grid::ops(),
                 "",
                 nullptr,
                 cuda_grid::grid_sampler_2d});
  all.push_back({"cuda_interpolate",
                 "bilinear and bicubic interpolate, with and without antialias (upsample_bilinear2d, "
                 "upsample_bicubic2d, _upsample_*_aa), as nvcc compiles CUDA's kernels: float32 source indices "
                 "fma(scale, dst + 0.5, -0.5) and sums fused; bit for bit with the 316 resize and resized_crop "
                 "vectors of the shipped CUDA goldens (uint8 through torchvision's float path)",
                 cuda_upsample::ops(),
                 "",
                 nullptr,
                 cuda_upsample::interpolate});
  all.push_back({"cuda_sort",
                 "sort and topk put equal keys in the order CUDA's kernels define: a bitonic network for slices of "
                 "at most 32 not asked to be stable, cub's stable merge sort up to 128, stable radix sorts beyond "
                 "(-0.0 before +0.0); topk takes ties from the lowest index and sorts its k the same way. Read from "
                 "PyTorch's Sort.cu, SortUtils.cuh and TensorTopK.cu; not yet checked on a GPU",
                 cuda_sort::ops(),
                 "",
                 nullptr,
                 cuda_sort::sort,
                 cuda_sort::covers});
  all.push_back({"cuda_nms",
                 "torchvision's nms as its CUDA kernel computes: scores ordered by CUDA's sort, the IoU threshold "
                 "a float, inter / fma(-w, h, fma(dxa, dya, area_b)) as nvcc contracts devIoU. Read from "
                 "nms_kernel.cu; the order and the threshold are the source's, the contraction not yet checked on "
                 "a GPU",
                 cuda_nms::ops(),
                 "",
                 nullptr,
                 cuda_nms::nms,
                 cuda_nms::covers});
  return all;
}

}  // namespace devparity::vdev::cuda_arithmetic
