// The sgemm_fma model (Note [CUDA's SGEMM order]): small float32 products
// on vdev in cuBLAS's fused order, deeper ones and float64 on the CPU's
// arithmetic, TF32's model first while TF32 is allowed.
#include "tests/support/cuda_models.h"

#include "harness/vdev/tf32.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

namespace devparity {
namespace {

namespace ca = vdev::cuda_arithmetic;
using testing::Tf32Setting;

class CudaSgemmTest : public testing::CudaModelsTest {};

// What a thread of a cuBLAS SGEMM kernel computes for one output.
at::Tensor fma_in_k_order(const at::Tensor& a, const at::Tensor& b) {
  auto out = at::empty({a.size(0), b.size(1)}, a.options());
  for (int64_t i = 0; i < a.size(0); ++i) {
    for (int64_t j = 0; j < b.size(1); ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < a.size(1); ++k) acc = std::fma(a[i][k].item<float>(), b[k][j].item<float>(), acc);
      out[i][j] = acc;
    }
  }
  return out;
}

TEST_F(CudaSgemmTest, SmallFloat32ProductsTakeCublassOrderWithoutTf32) {
  const Tf32Setting off(false);
  const auto a = at::rand({7, 3}) * 100.0, b = at::rand({3, 5}) * 100.0;
  EXPECT_TRUE(at::equal(at::mm(a.to(v1_), b.to(v1_)).cpu(), fma_in_k_order(a, b)));
  EXPECT_TRUE(at::equal(at::bmm(a.unsqueeze(0).to(v1_), b.unsqueeze(0).to(v1_)).cpu()[0], fma_in_k_order(a, b)));
  EXPECT_TRUE(at::equal(at::matmul(a.to(v1_), b.t().contiguous().t().to(v1_)).cpu(), fma_in_k_order(a, b)));
  ca::take_moved();
  // Deeper products and float64 keep the CPU's arithmetic: nothing to name.
  const auto deep = at::rand({7, 5}) * 100.0, deep_b = at::rand({5, 5}) * 100.0;
  EXPECT_TRUE(at::equal(at::mm(deep.to(v1_), deep_b.to(v1_)).cpu(), at::mm(deep, deep_b)));
  const auto a64 = a.to(at::kDouble), b64 = b.to(at::kDouble);
  EXPECT_TRUE(at::equal(at::mm(a64.to(v1_), b64.to(v1_)).cpu(), at::mm(a64, b64)));
  EXPECT_TRUE(ca::take_moved().empty());
  // TF32 allowed: its model comes first.
  const Tf32Setting on(true);
  EXPECT_TRUE(at::equal(at::mm(a.to(v1_), b.to(v1_)).cpu(), at::mm(vdev::tf32::round(a), vdev::tf32::round(b))));
  EXPECT_EQ(ca::take_moved().count("sgemm_fma"), 0u);
}

}  // namespace
}  // namespace devparity
