// CUDA's half precision gaps (tools/cuda_half_gaps.py's table) and LibTorch's
// wordings of a missing dtype kernel (Note [Half precision on the virtual device]).
#include "harness/rules/half_gaps.h"

#include <gtest/gtest.h>

namespace devparity::device_rules {
namespace {

TEST(HalfGaps, LinalgHasNoHalfKernelOnCudaInAnyForm) {
  for (const char* name : {"aten::linalg_inv", "linalg_inv", "aten::linalg_inv.out", "linalg_solve"}) {
    EXPECT_TRUE(cuda_lacks_half_kernel(name, "float16")) << name;
    EXPECT_TRUE(cuda_lacks_half_kernel(name, "bfloat16")) << name;
  }
}

TEST(HalfGaps, ImageOpsHaveCudasHalfKernels) {
  // The ops the simulated device runs through float32 for want of a CPU kernel.
  for (const char* name : {"aten::upsample_bilinear2d", "aten::grid_sampler_2d", "aten::clamp", "aten::clamp_.Tensor",
                           "aten::floor", "aten::round.decimals", "aten::convolution_overrideable", "aten::add.Tensor"}) {
    EXPECT_FALSE(cuda_lacks_half_kernel(name, "float16")) << name;
    EXPECT_FALSE(cuda_lacks_half_kernel(name, "bfloat16")) << name;
  }
}

TEST(HalfGaps, BothWordingsOfAMissingDtypeKernel) {
  EXPECT_TRUE(lacks_dtype_kernel("\"clamp_scalar_cpu\" not implemented for 'Half'", "Half"));
  EXPECT_TRUE(lacks_dtype_kernel("grid_sampler_2d_cpu not implemented for BFloat16", "BFloat16"));
  // Twins: another dtype, another message, a longer name that starts alike.
  EXPECT_FALSE(lacks_dtype_kernel("\"clamp_scalar_cpu\" not implemented for 'Half'", "BFloat16"));
  EXPECT_FALSE(lacks_dtype_kernel("Expected all tensors to be on the same device", "Half"));
  EXPECT_FALSE(lacks_dtype_kernel("\"op\" not implemented for 'HalfComplex'", "Half"));
}

}  // namespace
}  // namespace devparity::device_rules
