// The cuda_interpolate model (vdev/cuda_upsample.h) is the catalog's model
// of CUDA's float resize (Note [CUDA's float resize], checked on a real
// GPU's vectors) bit for bit, computed per output pixel as the kernels do;
// beyond the catalog's domain (scale factors, float64, half precision,
// non-contiguous inputs) it is interpolate's maths; what it leaves to the
// CPU's kernel stays the CPU's.

#include "tests/support/cuda_models.h"

#include "harness/transforms/kernels/cuda_float_resize.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

namespace ca = vdev::cuda_arithmetic;

class CudaUpsampleTest : public testing::CudaModelsTest {
 protected:
  // interpolate's op for the configuration, on x's device.
  static at::Tensor upsample(const at::Tensor& x, const ResizeConfig& c) {
    const std::vector<int64_t> size = {c.height, c.width};
    const bool cubic = c.interpolation == Interpolation::kBicubic;
    if (c.antialias) {
      return cubic ? at::_upsample_bicubic2d_aa(x, size, c.align_corners)
                   : at::_upsample_bilinear2d_aa(x, size, c.align_corners);
    }
    return cubic ? at::upsample_bicubic2d(x, size, c.align_corners) : at::upsample_bilinear2d(x, size, c.align_corners);
  }
  const at::Tensor image_ = at::rand({2, 3, 13, 17}) * 255.0;
};

TEST_F(CudaUpsampleTest, IsTheCatalogsModelOfCudasFloatResizeBitForBit) {
  int compared = 0;
  for (const auto mode : {Interpolation::kBilinear, Interpolation::kBicubic}) {
    for (const bool antialias : {false, true}) {
      for (const bool align : {false, true}) {
        if (antialias && align) continue;  // not modelled (below)
        for (const auto& [h, w] : std::vector<std::pair<int64_t, int64_t>>{{5, 7}, {13, 40}, {29, 6}, {1, 1}, {13, 17}}) {
          ResizeConfig c;
          c.height = h, c.width = w, c.interpolation = mode, c.antialias = antialias, c.align_corners = align;
          const auto got = upsample(image_.to(v1_), c).cpu();
          const auto want = resample::cuda_float_resize(image_, c);
          EXPECT_TRUE(at::equal(got, want)) << fmt::format(
              "{} antialias {} align {} to {}x{}: max diff {}", mode == Interpolation::kBicubic ? "bicubic" : "bilinear",
              antialias, align, h, w, (got - want).abs().max().item<double>());
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 30);
  EXPECT_GT(ca::take_moved().count("cuda_interpolate"), 0u);
}

TEST_F(CudaUpsampleTest, BeyondTheCatalogsDomainItIsInterpolatesMaths) {
  // Scale factors (the .vec form, as F.interpolate(scale_factor=) calls it), float64,
  // a channels-last input, half precision: within rounding of the CPU's kernel.
  const auto x = image_ / 255.0;
  const std::vector<double> factors = {1.7, 0.45};
  for (const bool antialias : {false, true}) {
    const auto want = antialias ? at::_upsample_bilinear2d_aa(x, c10::nullopt, false, factors)
                                : at::upsample_bicubic2d(x, c10::nullopt, false, factors);
    const auto got = antialias ? at::_upsample_bilinear2d_aa(x.to(v1_), c10::nullopt, false, factors).cpu()
                               : at::upsample_bicubic2d(x.to(v1_), c10::nullopt, false, factors).cpu();
    ASSERT_EQ(got.sizes(), want.sizes());
    EXPECT_TRUE(at::allclose(got, want, 0.0, 1e-5)) << (got - want).abs().max().item<double>();
  }
  const auto x64 = x.to(at::kDouble);
  EXPECT_TRUE(at::allclose(at::upsample_bilinear2d(x64.to(v1_), {21, 9}, false).cpu(),
                           at::upsample_bilinear2d(x64, {21, 9}, false), 0.0, 1e-12));
  const auto last = x.contiguous(at::MemoryFormat::ChannelsLast);
  const auto out = at::upsample_bicubic2d(last.to(v1_), {21, 9}, true);
  EXPECT_TRUE(out.is_contiguous(at::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(at::allclose(out.cpu(), at::upsample_bicubic2d(last, {21, 9}, true), 0.0, 1e-5));
  const auto half = x.to(at::kHalf);
  EXPECT_TRUE(at::allclose(at::upsample_bilinear2d(half.to(v1_), {21, 9}, false).cpu().to(at::kFloat),
                           at::upsample_bilinear2d(half.to(at::kFloat), {21, 9}, false), 0.0, 2e-3));
}

TEST_F(CudaUpsampleTest, WhatItDoesNotModelRunsTheCpusKernel) {
  ca::take_moved();
  const auto x = image_ / 255.0;
  EXPECT_TRUE(at::equal(at::_upsample_bilinear2d_aa(x.to(v1_), {5, 7}, true).cpu(),
                        at::_upsample_bilinear2d_aa(x, {5, 7}, true)));
  EXPECT_TRUE(ca::take_moved().empty());
  // A malformed call fails on vdev as on the CPU.
  EXPECT_THROW(at::upsample_bilinear2d(x.to(v1_), {0, 7}, false).cpu(), c10::Error);
  const std::vector<double> factors = {0.5, 0.5};
  EXPECT_THROW(at::upsample_bilinear2d(x.to(v1_), at::IntArrayRef{4, 4}, false, factors).cpu(), c10::Error);
}

}  // namespace
}  // namespace devparity
