// vdev's own models of CUDA's arithmetic (Note [CUDA's arithmetic on vdev]
// in vdev/cuda_arithmetic.h).
#include "harness/vdev/cuda_arithmetic.h"
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
  return all;
}

}  // namespace devparity::vdev::cuda_arithmetic
