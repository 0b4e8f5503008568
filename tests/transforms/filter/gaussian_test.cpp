// gaussian_blur2d: kernel properties, border modes, a conv2d reference,
// per-sample sigma and axis order.

#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/subject/transform_registry.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using nlohmann::json;

class BlurTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    blur_ = TransformRegistry::global().find("gaussian_blur2d");
    ASSERT_NE(blur_, nullptr);
  }
  at::Tensor blur(const at::Tensor& x, const json& given) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
    return blur_->apply(x, blur_->sample(given, x.sizes(), gen));
  }
  const Transform* blur_ = nullptr;
};

std::vector<double> kernel(int64_t size, double sigma) {
  std::vector<double> k;
  double total = 0;
  for (int64_t i = 0; i < size; ++i) {
    const double x = static_cast<double>(i - size / 2);
    k.push_back(std::exp(-x * x / (2 * sigma * sigma)));
    total += k.back();
  }
  for (auto& v : k) v /= total;
  return k;
}

TEST_F(BlurTest, ImpulseResponseIsTheNormalisedSymmetricKernel) {
  auto x = at::zeros({1, 1, 11, 11}, at::kDouble);
  x[0][0][5][5] = 1.0;
  const auto y = blur(x, {{"kernel_size", {5, 3}}, {"sigma", {1.5, 0.7}}, {"border", "constant"}});
  EXPECT_NEAR(y.sum().item<double>(), 1.0, 1e-12);
  EXPECT_TRUE(at::allclose(y, y.flip({2}), 0, 1e-15));
  EXPECT_TRUE(at::allclose(y, y.flip({3}), 0, 1e-15));
  const auto ky = kernel(5, 1.5), kx = kernel(3, 0.7);
  for (int dy = -2; dy <= 2; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      EXPECT_NEAR(y[0][0][5 + dy][5 + dx].item<double>(), ky[dy + 2] * kx[dx + 1], 1e-15);
    }
  }
  EXPECT_EQ(y[0][0][5][7].item<double>(), 0.0);  // outside the 3-wide kernel along W
  EXPECT_EQ(y[0][0][8][5].item<double>(), 0.0);  // outside the 5-tall kernel along H
}

TEST_F(BlurTest, ConstantImageIsUnchangedExceptWithZeroPadding) {
  for (std::string border : {"reflect", "replicate", "circular"}) {
    const json p = {{"kernel_size", {7, 5}}, {"sigma", {2.0, 1.0}}, {"border", border}};
    const auto f = blur(at::full({2, 3, 9, 6}, 0.25, at::kFloat), p);
    EXPECT_LT((f - 0.25).abs().max().item<double>(), 1e-6) << border;
    EXPECT_TRUE(at::all(blur(at::full({2, 3, 9, 6}, 200, at::kByte), p) == 200).item<bool>()) << border;
  }
  const auto c = blur(at::full({1, 1, 9, 9}, 1.0, at::kDouble),
                      {{"kernel_size", {3, 3}}, {"sigma", {1.0, 1.0}}, {"border", "constant"}});
  EXPECT_DOUBLE_EQ(c[0][0][4][4].item<double>(), 1.0);
  // A corner sees the centre tap and one neighbour per axis: (k0 + k1)^2.
  const auto k = kernel(3, 1.0);
  EXPECT_NEAR(c[0][0][0][0].item<double>(), (k[1] + k[2]) * (k[1] + k[2]), 1e-15);
}

TEST_F(BlurTest, MatchesConv2dWithLibTorchPadding) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
  const auto x = at::rand({2, 3, 12, 10}, gen).to(at::kDouble);
  const auto ky = kernel(5, 1.3), kx = kernel(3, 0.8);
  const auto k2 = at::outer(at::tensor(ky, at::kDouble), at::tensor(kx, at::kDouble));
  const auto weight = k2.reshape({1, 1, 5, 3}).repeat({3, 1, 1, 1});
  const std::vector<std::pair<std::string, at::Tensor>> padded = {
      {"reflect", at::reflection_pad2d(x, {1, 1, 2, 2})},
      {"replicate", at::replication_pad2d(x, {1, 1, 2, 2})},
      {"constant", at::constant_pad_nd(x, {1, 1, 2, 2}, 0.0)},
  };
  for (const auto& [border, xp] : padded) {
    const auto expected = at::conv2d(xp, weight, at::Tensor(), at::IntArrayRef{1, 1},
                                          at::IntArrayRef{0, 0}, at::IntArrayRef{1, 1}, 3);
    const auto ours = blur(x, {{"kernel_size", {5, 3}}, {"sigma", {1.3, 0.8}}, {"border", border}});
    EXPECT_TRUE(at::allclose(ours, expected, 1e-12, 1e-12)) << border;
  }
  // circular: roll-based reference.
  at::Tensor expected = at::zeros_like(x);
  for (int dy = -2; dy <= 2; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      expected += at::roll(x, {-dy, -dx}, {2, 3}) * (ky[dy + 2] * kx[dx + 1]);
    }
  }
  const auto ours = blur(x, {{"kernel_size", {5, 3}}, {"sigma", {1.3, 0.8}}, {"border", "circular"}});
  EXPECT_TRUE(at::allclose(ours, expected, 1e-12, 1e-12));
}

TEST_F(BlurTest, ReflectWorksForKernelsLargerThanTheImage) {
  // Mirror repeatedly: an image of 3 along W reads ... 2 1 0 1 2 1 0 ...
  const auto x = at::tensor(std::vector<double>{1, 2, 4}).reshape({1, 1, 1, 3});
  const auto y = blur(x, {{"kernel_size", {1, 9}}, {"sigma", {1.0, 2.0}}});
  const auto k = kernel(9, 2.0);
  const int period[] = {0, 1, 2, 1};  // reflect index for offsets, period 4
  for (int o = 0; o < 3; ++o) {
    double expected = 0;
    for (int t = 0; t < 9; ++t) {
      const int p = o + t - 4;
      const int m = ((p % 4) + 4) % 4;
      expected += k[t] * x[0][0][0][period[m]].item<double>();
    }
    EXPECT_NEAR(y[0][0][0][o].item<double>(), expected, 1e-14) << o;
  }
}

TEST_F(BlurTest, SigmaIsYThenX) {
  // Varies along W only: blurring along H changes nothing.
  const auto x = at::arange(10, at::kDouble).pow(2).reshape({1, 1, 1, 10}).expand({1, 1, 8, 10}).contiguous();
  const auto along_h = blur(x, {{"kernel_size", {7, 7}}, {"sigma", {3.0, 0.01}}, {"border", "replicate"}});
  const auto along_w = blur(x, {{"kernel_size", {7, 7}}, {"sigma", {0.01, 3.0}}, {"border", "replicate"}});
  EXPECT_TRUE(at::allclose(along_h, x, 0, 1e-12));
  EXPECT_GT((along_w - x).abs().max().item<double>(), 1.0);
}

TEST_F(BlurTest, PerSampleSigmaEqualsSeparateCalls) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(4);
  const auto x = at::rand({2, 3, 9, 8}, gen);
  const auto both = blur(x, {{"kernel_size", {5, 5}}, {"sigma", {{0.5, 1.0}, {2.0, 1.5}}}});
  const auto first = blur(x.narrow(0, 0, 1), {{"kernel_size", {5, 5}}, {"sigma", {0.5, 1.0}}});
  const auto second = blur(x.narrow(0, 1, 1), {{"kernel_size", {5, 5}}, {"sigma", {2.0, 1.5}}});
  EXPECT_TRUE(at::equal(both.narrow(0, 0, 1), first));
  EXPECT_TRUE(at::equal(both.narrow(0, 1, 1), second));
}

TEST_F(BlurTest, Uint8FixedPointWithinOneOfRoundedFloat) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(5);
  const auto x = at::randint(0, 256, {2, 3, 15, 13}, gen).to(at::kByte);
  for (std::string border : {"reflect", "replicate", "constant", "circular"}) {
    const json p = {{"kernel_size", {7, 3}}, {"sigma", {2.0, 0.6}}, {"border", border}};
    const auto fixed = blur(x, p).to(at::kInt);
    const auto exact = at::round(blur(x.to(at::kDouble), p)).to(at::kInt);
    EXPECT_LE((fixed - exact).abs().max().item<int>(), 1) << border;
  }
}

TEST_F(BlurTest, RunsOnMeta) {
  const auto x = at::empty({2, 3, 9, 7}, at::TensorOptions().dtype(at::kByte).device(at::kMeta));
  for (std::string border : {"reflect", "replicate", "constant", "circular"}) {
    const auto y = blur(x, {{"kernel_size", {5, 3}}, {"sigma", {{1, 1}, {2, 2}}}, {"border", border}});
    EXPECT_EQ(y.device().type(), c10::DeviceType::Meta);
    EXPECT_EQ(y.sizes(), x.sizes());
    EXPECT_EQ(y.scalar_type(), at::kByte);
  }
}

TEST_F(BlurTest, BadParametersNameTheField) {
  const auto x = seeded_image({2, 1, 9, 9});
  const std::vector<std::pair<json, std::string>> bad = {
      {{{"kernel_size", {4, 3}}, {"sigma", {1, 1}}}, "/kernel_size/0"},
      {{{"kernel_size", {3, 3}}, {"sigma", {1, 0}}}, "/sigma/1"},
      {{{"kernel_size", {3, 3}}, {"sigma", {{1, 1}, {1, 1}, {1, 1}}}}, "/sigma"},
      {{{"kernel_size", {3, 3}}, {"sigma", {{1, 1}, {1}}}}, "/sigma/1"},
      {{{"kernel_size", {3, 3}}, {"sigma", {1, 1}}, {"border", "mirror"}}, "/border"},
      {{{"kernel_size", {3, 3}}}, ""},
  };
  for (const auto& [params, pointer] : bad) {
    try {
      blur(x, params);
      ADD_FAILURE() << params.dump();
    } catch (const FieldError& e) {
      EXPECT_EQ(e.pointer(), pointer) << params.dump() << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace devparity
