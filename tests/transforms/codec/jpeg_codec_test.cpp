// jpeg_codec_differentiable against the spec's numbers.

#include "harness/builtins.h"
#include "harness/subject/transform_registry.h"
#include "harness/transforms/codec/jpeg_detail.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace devparity {
namespace {

using nlohmann::json;

at::Tensor scalars(std::vector<double> v) { return at::tensor(v, at::kDouble); }

TEST(JpegCodecTest, DifferentiableHelpersOfTheSpec) {
  const auto r = jpeg_detail::diff_round(scalars({1.5, 2.5, 3.0}));
  EXPECT_DOUBLE_EQ(r[0].item<double>(), 1.875);  // round half to even: 2, + (-0.5)^3
  EXPECT_DOUBLE_EQ(r[1].item<double>(), 2.125);
  EXPECT_DOUBLE_EQ(r[2].item<double>(), 3.0);
  const auto f = jpeg_detail::diff_floor(scalars({1.5, 4.0}));
  EXPECT_DOUBLE_EQ(f[0].item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(f[1].item<double>(), 4.0 - 0.125);
  const auto c = jpeg_detail::soft_clip(scalars({1.0, 12.0, 7.0}), 5.0, 10.0);
  EXPECT_NEAR(c[0].item<double>(), 4.98037, 1e-5);
  EXPECT_NEAR(c[1].item<double>(), 10.01729, 1e-5);
  EXPECT_DOUBLE_EQ(c[2].item<double>(), 7.0);
}

TEST(JpegCodecTest, QualityToScaleAndEffectiveTables) {
  const std::vector<double> q = {1, 10, 25, 50, 75, 90, 99.5, 100};
  const std::vector<double> s = {4999.875, 499.875, 199.875, 99.875, 49.875, 19.875, 0.875, -0.125};
  const auto scale = jpeg_detail::quality_scale(scalars(q));
  for (size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(scale[i].item<double>(), s[i], 1e-9) << q[i];
  // QTe for table entries 16, 11, 99, 121 (the spec's table).
  const auto qt = at::tensor(std::vector<double>{16, 11, 99, 121}, at::kDouble).reshape({1, 1, 4});
  const auto qte = jpeg_detail::effective_qt(qt, scale).reshape({8, 4});
  const double expected[8][4] = {
      {254.889, 254.889, 254.889, 254.889}, {79.99999, 54.99999, 254.889, 254.889},
      {31.99999, 21.99999, 197.998, 241.997}, {15.99999, 10.99999, 98.998, 120.997},
      {7.99999, 5.11497, 49.0533, 60.0424},   {3.00583, 2.00646, 19.966, 24.0001},
      {0.12052, 0.12008, 0.99761, 1.00020},   {0.119, 0.119, 0.119, 0.119}};
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) {
      EXPECT_NEAR(qte[i][j].item<double>(), expected[i][j], i == 7 ? 2e-3 : 1e-3) << q[i] << " " << j;
    }
  }
}

TEST(JpegCodecTest, ConstantBlockDctIsItsDcTerm) {
  // D[0, 0] = 1/4 * 1/2 * 64 * (v - 128) = 8 (v - 128); every other coefficient is 0.
  const auto d = jpeg_detail::dct(at::full({1, 1, 8, 8}, 200.0, at::kDouble));
  EXPECT_NEAR(d[0][0][0][0].item<double>(), 8.0 * 72.0, 1e-10);
  auto ac = d.clone();
  ac[0][0][0][0] = 0.0;
  EXPECT_LT(ac.abs().max().item<double>(), 1e-10);
}

class JpegCodecTransformTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    codec_ = TransformRegistry::global().find("jpeg_codec_differentiable");
    ASSERT_NE(codec_, nullptr);
    // A smooth image: a ramp per channel.
    const auto yy = at::arange(32, at::kFloat).reshape({32, 1}) / 31.0;
    const auto xx = at::arange(48, at::kFloat).reshape({1, 48}) / 47.0;
    image_ = at::stack({xx.expand({32, 48}), yy.expand({32, 48}), (xx + yy) / 2}, 0).unsqueeze(0);
  }
  double psnr(double quality) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
    const auto y = codec_->apply(image_, codec_->sample({{"quality", {quality}}}, image_.sizes(), gen));
    const double mse = (y - image_).pow(2).mean().item<double>();
    return 10.0 * std::log10(1.0 / mse);
  }
  const Transform* codec_ = nullptr;
  at::Tensor image_;
};

TEST_F(JpegCodecTransformTest, QualityHundredIsCloseToIdentityAndLowerIsWorse) {
  const double q100 = psnr(100), q90 = psnr(90), q50 = psnr(50), q10 = psnr(10);
  EXPECT_GT(q100, 45.0);  // chroma subsampling and the 0.12 table floor still cost a little
  EXPECT_GT(q100, q90);
  EXPECT_GT(q90, q50);
  EXPECT_GT(q50, q10);
  EXPECT_GT(q10, 20.0);
}

TEST_F(JpegCodecTransformTest, ShapesPerSampleQualityAndNaNAtZero) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const auto odd = at::rand({2, 3, 17, 11}, gen);
  const auto params = codec_->sample({{"quality", {20, 80}}}, odd.sizes(), gen);
  const auto y = codec_->apply(odd, params);
  EXPECT_EQ(y.sizes(), odd.sizes());  // padded to 32x16 inside, cropped back
  EXPECT_GE(y.min().item<float>(), 0.0f);
  EXPECT_LE(y.max().item<float>(), 1.0f);
  // Each sample uses its own quality: the low-quality one is further off.
  const double e0 = (y[0] - odd[0]).abs().mean().item<double>();
  const double e1 = (y[1] - odd[1]).abs().mean().item<double>();
  EXPECT_GT(e0, e1);
  // q = 0: 5000 / 0 makes the scale infinite, and the output NaN, as the formula says.
  const auto nan = codec_->apply(odd, codec_->sample({{"quality", 0}}, odd.sizes(), gen));
  EXPECT_TRUE(at::isnan(nan).all().item<bool>());
  // Drawn qualities come from U(1, 100), RandomJPEG's default.
  const auto drawn = codec_->sample(json::object(), odd.sizes(), gen);
  for (const auto& q : drawn["quality"]) {
    EXPECT_GE(q.get<double>(), 1.0);
    EXPECT_LE(q.get<double>(), 100.0);
  }
}

TEST_F(JpegCodecTransformTest, GradientsReachTheInput) {
  const auto x = image_.to(at::kDouble).requires_grad_(true);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const auto y = codec_->apply(x, codec_->sample({{"quality", {50}}}, x.sizes(), gen));
  y.sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_GT(x.grad().abs().sum().item<double>(), 0.0);
  EXPECT_FALSE(at::isnan(x.grad()).any().item<bool>());
}

}  // namespace
}  // namespace devparity
