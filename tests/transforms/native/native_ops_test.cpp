// The native op subjects against independent computations.

#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/subject/state.h"
#include "harness/subject/transform_registry.h"
#include "tests/support/run_suite.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using nlohmann::json;

const Transform& subject(const std::string& name) {
  register_builtins();
  return *TransformRegistry::global().find(name);
}

json sample(const Transform& t, const json& given, c10::IntArrayRef shape) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
  return t.sample(given, shape, gen);
}

TEST(NativeOps, GridSampleWithTheIdentityMapReturnsTheInput) {
  const auto& t = subject("grid_sample");
  const auto x = seeded_image({2, 3, 7, 5}, at::kDouble);
  const auto p = sample(t, {{"theta", {{1, 0, 0}, {0, 1, 0}}}, {"align_corners", true}}, x.sizes());
  EXPECT_TRUE(at::allclose(t.apply(x, p), x, 0, 1e-12));
  // A half-pixel shift right with border padding: each output is the mean of two neighbours.
  const auto q = sample(t, {{"theta", {{1, 0, 1.0 / 4}, {0, 1, 0}}}, {"align_corners", true},
                            {"padding_mode", "border"}}, x.sizes());
  const auto y = t.apply(x, q);
  const auto expected = (x.narrow(3, 0, 4) + x.narrow(3, 1, 4)) / 2;
  EXPECT_TRUE(at::allclose(y.narrow(3, 0, 4), expected, 0, 1e-12));
  EXPECT_THROW(sample(t, {{"theta", {1, 2, 3}}}, x.sizes()), FieldError);
}

TEST(NativeOps, Conv2dMatchesAnExplicitSum) {
  const auto& t = subject("conv2d");
  const auto x = seeded_image({1, 2, 5, 4}, at::kDouble);
  const auto p = sample(t, {{"out_channels", 3}, {"kernel_size", 3}, {"padding", 1}}, x.sizes());
  const auto y = t.apply(x, p);
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{1, 3, 5, 4}));
  // Same weights on every call (seeded), and the sum written out.
  auto state = dynamic_cast<const StatefulTransform&>(t).make_state(p);
  const auto w = state->tensor("weight");
  const auto b = state->tensor("bias");
  const auto padded = at::constant_pad_nd(x, {1, 1, 1, 1}, 0.0);
  for (int64_t o = 0; o < 3; ++o) {
    for (int64_t i = 0; i < 5; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        double sum = b[o].item<double>();
        for (int64_t c = 0; c < 2; ++c) {
          for (int64_t u = 0; u < 3; ++u) {
            for (int64_t v = 0; v < 3; ++v) {
              sum += w[o][c][u][v].item<double>() * padded[0][c][i + u][j + v].item<double>();
            }
          }
        }
        EXPECT_NEAR(y[0][o][i][j].item<double>(), sum, 1e-12);
      }
    }
  }
  EXPECT_THROW(sample(t, {{"groups", 3}}, x.sizes()), FieldError);
  EXPECT_EQ(sample(t, p, x.sizes()), p);  // a report's parameters replay as they are
  EXPECT_THROW(sample(t, {{"in_channels", 3}}, x.sizes()), FieldError);
}

TEST(NativeOps, AvgPoolAveragesWindows) {
  const auto& t = subject("avg_pool2d");
  const auto x = at::arange(16, at::kDouble).reshape({1, 1, 4, 4});
  const auto y = t.apply(x, sample(t, {{"kernel_size", 2}}, x.sizes()));
  const auto expected = at::tensor({2.5, 4.5, 10.5, 12.5}, at::kDouble).reshape({1, 1, 2, 2});
  EXPECT_TRUE(at::equal(y, expected));
  EXPECT_THROW(sample(t, {{"kernel_size", 2}, {"padding", 2}}, x.sizes()), FieldError);
}

TEST(NativeOps, ConvBlurAgreesWithTheSeparableReference) {
  const auto& conv = subject("conv_blur");
  const auto& reference = subject("gaussian_blur2d");
  const auto x = seeded_image({2, 3, 13, 9}, at::kDouble);
  for (const char* border : {"reflect", "replicate", "constant", "circular"}) {
    const auto a = conv.apply(x, sample(conv, {{"kernel_size", {5, 3}}, {"sigma", {1.5, 0.8}}, {"border", border}}, x.sizes()));
    const auto b = reference.apply(x, sample(reference, {{"kernel_size", {5, 3}}, {"sigma", {1.5, 0.8}}, {"border", border}}, x.sizes()));
    EXPECT_TRUE(at::allclose(a, b, 0, 1e-12)) << border << ": " << (a - b).abs().max().item<double>();
  }
}

TEST(NativeOps, MetaRunsWhatItCanAndSkipsConvolutions) {
  const json suite = {{"cases",
                       {{{"name", "pool"}, {"subject", "avg_pool2d"}, {"dtypes", {"float32"}}},
                        {{"name", "conv"}, {"subject", "conv2d"}, {"dtypes", {"float32"}}}}}};
  const auto rec = testing::run_suite(suite, "cpu,meta");
  for (const auto& r : rec.results) {
    if (r.case_name == "conv" && r.device == "meta") {
      EXPECT_EQ(r.status, Status::kSkip) << r.id << ": " << r.message;
      EXPECT_NE(r.message.find("unsupported on meta"), std::string::npos) << r.message;
    } else {
      EXPECT_EQ(r.status, Status::kPass) << r.id << ": " << r.message;
    }
  }
}

}  // namespace
}  // namespace devparity
