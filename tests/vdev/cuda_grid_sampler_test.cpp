// The cuda_grid_sample model (Note [CUDA's grid sampler]) is grid_sample's
// maths in every mode; tests/vdev/cuda_goldens_test.cpp holds it to a real
// GPU's bits.
#include "tests/support/cuda_models.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>


namespace devparity {
namespace {

namespace ca = vdev::cuda_arithmetic;

class CudaGridSamplerTest : public testing::CudaModelsTest {};

// The grid sampler's model computes grid_sample's maths in every mode,
// padding and alignment: within rounding of the CPU's kernel, in float32
// and float64 (and half through float), and a call the kernel refuses
// fails on vdev as on the CPU.
TEST_F(CudaGridSamplerTest, TheGridSamplersModelIsGridSampleInEveryMode) {
  const auto image = at::rand({2, 3, 9, 11});
  const auto grid = at::rand({2, 6, 7, 2}) * 2.6 - 1.3;  // outside the image too
  for (const auto dtype : {at::kFloat, at::kDouble}) {
    for (int64_t mode = 0; mode < 3; ++mode) {
      for (int64_t padding = 0; padding < 3; ++padding) {
        for (const bool align : {false, true}) {
          const auto x = image.to(dtype), g = grid.to(dtype);
          const auto want = at::grid_sampler_2d(x, g, mode, padding, align);
          const auto got = at::grid_sampler_2d(x.to(v1_), g.to(v1_), mode, padding, align).cpu();
          const double tol = dtype == at::kFloat ? 1e-5 : 1e-12;
          EXPECT_TRUE(at::allclose(got, want, 0.0, tol))
              << c10::toString(dtype) << " mode " << mode << " padding " << padding << " align " << align
              << ": max diff " << (got - want).abs().max().item<double>();
        }
      }
    }
  }
  EXPECT_GT(ca::take_moved().count("cuda_grid_sample"), 0u);
  const auto half = at::grid_sampler_2d(image.to(at::kHalf).to(v1_), grid.to(at::kHalf).to(v1_), 0, 0, false).cpu();
  EXPECT_TRUE(at::allclose(half.to(at::kFloat),
                           at::grid_sampler_2d(image.to(at::kHalf).to(at::kFloat), grid.to(at::kHalf).to(at::kFloat),
                                               0, 0, false),
                           0.0, 2e-3));
  EXPECT_THROW(at::grid_sampler_2d(image.to(v1_), at::rand({2, 6, 7, 3}).to(v1_), 0, 0, false).cpu(), c10::Error);
}

}  // namespace
}  // namespace devparity
