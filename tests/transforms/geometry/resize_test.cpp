// The geometry family. resize: analytic truths, hand-computed cases,
// agreement with LibTorch's interpolate, and the uint8 strategies. rescale:
// Kornia's size rule and Gaussian antialias.

#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/subject/execution.h"
#include "harness/subject/transform_registry.h"
#include "harness/transforms/kernels/resize_and_blur.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <iomanip>
#include <sstream>
#include <nlohmann/json.hpp>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using nlohmann::json;

class ResizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    resize_ = TransformRegistry::global().find("resize");
    interpolate_ = TransformRegistry::global().find("interpolate");
    ASSERT_NE(resize_, nullptr);
    ASSERT_NE(interpolate_, nullptr);
  }

  at::Tensor run(const Transform* t, const at::Tensor& x, const json& given) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
    return t->apply(x, t->sample(given, x.sizes(), gen));
  }
  at::Tensor resize(const at::Tensor& x, const json& given) { return run(resize_, x, given); }

  static std::vector<json> all_modes(std::vector<int64_t> size) {
    std::vector<json> out;
    for (std::string mode : {"nearest", "bilinear", "bicubic", "area"}) {
      out.push_back({{"size", size}, {"interpolation", mode}});
      if (mode == "bilinear" || mode == "bicubic") {
        out.push_back({{"size", size}, {"interpolation", mode}, {"antialias", true}});
        out.push_back({{"size", size}, {"interpolation", mode}, {"align_corners", true}});
        out.push_back({{"size", size}, {"interpolation", mode}, {"antialias", true},
                       {"align_corners", true}});
      }
    }
    return out;
  }

  const Transform* resize_ = nullptr;
  const Transform* interpolate_ = nullptr;
};

at::Tensor row(std::vector<double> v, at::ScalarType dtype = at::kDouble) {
  const auto n = static_cast<int64_t>(v.size());
  return at::tensor(v, at::kDouble).reshape({1, 1, 1, n}).to(dtype);
}

std::vector<double> values(const at::Tensor& t) {
  const auto d = t.to(at::kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

TEST_F(ResizeTest, HandComputedBilinear) {
  // scale 0.5: sources -0.25 (clamped to 0), 0.25, 0.75, 1.25 (edge pixel twice).
  EXPECT_EQ(values(resize(row({0, 10}), {{"size", {1, 4}}})), (std::vector<double>{0, 2.5, 7.5, 10}));
  // The same in uint8: fixed point rounds ties half up, the float round trip half to even.
  EXPECT_EQ(values(resize(row({0, 10}, at::kByte), {{"size", {1, 4}}})),
            (std::vector<double>{0, 3, 8, 10}));
  EXPECT_EQ(values(resize(row({0, 10}, at::kByte),
                          {{"size", {1, 4}}, {"uint8_strategy", "float_round_trip"}})),
            (std::vector<double>{0, 2, 8, 10}));
}

TEST_F(ResizeTest, HandComputedNearestAndArea) {
  // floor(dst * 3/5): 0, 0.6, 1.2, 1.8, 2.4.
  EXPECT_EQ(values(resize(row({1, 2, 3}), {{"size", {1, 5}}, {"interpolation", "nearest"}})),
            (std::vector<double>{1, 1, 2, 2, 3}));
  EXPECT_EQ(values(resize(row({1, 2, 3, 4}), {{"size", {1, 2}}, {"interpolation", "area"}})),
            (std::vector<double>{1.5, 3.5}));
  // Windows [0,2), [1,3), [2,4).
  EXPECT_EQ(values(resize(row({1, 2, 3, 4}), {{"size", {1, 3}}, {"interpolation", "area"}})),
            (std::vector<double>{1.5, 2.5, 3.5}));
}

TEST_F(ResizeTest, HandComputedBicubic) {
  // align_corners, 4 -> 7: output 1 samples source 0.5 with weights
  // cubic(1.5), cubic(0.5), cubic(0.5), cubic(1.5) for a = -0.75:
  // -0.09375, 0.59375, 0.59375, -0.09375 (tap -1 clamped to 0).
  const auto out = values(resize(row({0, 1, 0, 0}), {{"size", {1, 7}}, {"interpolation", "bicubic"},
                                                      {"align_corners", true}}));
  EXPECT_DOUBLE_EQ(out[0], 0.0);
  EXPECT_DOUBLE_EQ(out[1], 0.59375);
  EXPECT_DOUBLE_EQ(out[2], 1.0);
  // Source 1.5: taps 0..3 hold 0, 1, 0, 0, so only cubic(0.5) on tap 1 counts.
  EXPECT_DOUBLE_EQ(out[3], 0.59375);
}

TEST_F(ResizeTest, HandComputedAntialias) {
  // 4 -> 2, scale 2, support 2: output 0 covers sources 0..2 with tent weights
  // 0.75, 0.75, 0.25 (sum 1.75); output 1 covers 1..3 with 0.25, 0.75, 0.75.
  const auto out = values(resize(row({0, 7, 14, 21}),
                                 {{"size", {1, 2}}, {"interpolation", "bilinear"}, {"antialias", true}}));
  EXPECT_NEAR(out[0], 5.0, 1e-12);   // (0*3 + 7*3 + 14*1) / 7
  EXPECT_NEAR(out[1], 16.0, 1e-12);  // (7*1 + 14*3 + 21*3) / 7
}

TEST_F(ResizeTest, ConstantImageStaysConstant) {
  const auto x = at::full({2, 3, 13, 9}, 0.375, at::kFloat);
  const auto u = at::full({2, 3, 13, 9}, 77, at::kByte);
  for (const auto& size : {std::vector<int64_t>{31, 4}, std::vector<int64_t>{5, 27}}) {
    for (const auto& p : all_modes(size)) {
      const auto y = resize(x, p);
      EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 3, size[0], size[1]}));
      EXPECT_LT((y - 0.375).abs().max().item<double>(), 1e-6) << p.dump();
      for (std::string strategy : {"fixed_point", "float_round_trip"}) {
        auto q = p;
        q["uint8_strategy"] = strategy;
        EXPECT_TRUE(at::all(resize(u, q) == 77).item<bool>()) << q.dump();
      }
    }
  }
}

TEST_F(ResizeTest, LinearRampStaysLinearUnderBilinear) {
  // With align_corners the corners map onto each other, so a ramp a*w + b
  // resizes to a * o * (in-1)/(out-1) + b everywhere.
  const int64_t in = 11, out = 29;
  const auto w = at::arange(in, at::kDouble);
  const auto x = (w * 0.75 + 2.0).reshape({1, 1, 1, in}).expand({1, 2, 5, in}).contiguous();
  const auto y = resize(x, {{"size", {5, out}}, {"align_corners", true}});
  const auto expected = at::arange(out, at::kDouble) * (0.75 * (in - 1) / (out - 1)) + 2.0;
  EXPECT_LT((y - expected.reshape({1, 1, 1, out})).abs().max().item<double>(), 1e-12);
  // With half-pixel centres it is linear wherever no clamping happens.
  const auto h = resize(x, {{"size", {5, out}}});
  const auto inner = h.narrow(3, 1, out - 2);
  const auto second = inner.narrow(3, 2, out - 4) - 2 * inner.narrow(3, 1, out - 4) + inner.narrow(3, 0, out - 4);
  EXPECT_LT(second.abs().max().item<double>(), 1e-12);
}

TEST_F(ResizeTest, AgreesWithLibTorchInterpolateInEveryMode) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
  const std::vector<std::vector<int64_t>> shapes = {{17, 11}, {48, 64}, {5, 7}, {8, 8}};
  const std::vector<std::vector<int64_t>> sizes = {{23, 37}, {5, 4}, {17, 5}, {1, 1}, {16, 16}};
  double worst = 0.0;
  for (const auto& shape : shapes) {
    const auto x = at::rand({2, 3, shape[0], shape[1]}, gen);
    for (const auto& size : sizes) {
      for (const auto& p : all_modes(size)) {
        const auto ours = resize(x, p);
        const auto theirs = run(interpolate_, x, p);
        ASSERT_EQ(ours.sizes(), theirs.sizes()) << p.dump();
        // torch.testing.assert_close's float32 tolerance.
        const double diff = (ours - theirs).abs().max().item<double>();
        EXPECT_TRUE(at::allclose(ours, theirs, 1.3e-6, 1e-5)) << p.dump() << " max diff " << diff;
        worst = std::max(worst, diff);
        // In float64 the two agree to float64 rounding.
        const auto x64 = x.to(at::kDouble);
        EXPECT_TRUE(at::allclose(resize(x64, p), run(interpolate_, x64, p), 1e-12, 1e-12)) << p.dump();
      }
    }
  }
  std::ostringstream text;
  text << std::setprecision(3) << worst;
  RecordProperty("worst_float32_abs_diff", text.str());
}

TEST_F(ResizeTest, FixedPointStaysWithinOneOfRoundedFloat) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(2);
  const auto x = at::randint(0, 256, {2, 3, 19, 23}, gen).to(at::kByte);
  for (const auto& size : {std::vector<int64_t>{40, 9}, std::vector<int64_t>{7, 50},
                           std::vector<int64_t>{3, 2}}) {
    for (auto p : all_modes(size)) {
      p["uint8_strategy"] = "fixed_point";
      const auto fixed = resize(x, p).to(at::kInt);
      auto q = p;
      q["uint8_strategy"] = "float_round_trip";
      const auto trip = resize(x, q).to(at::kInt);
      // The float64 result, rounded, is the closest uint8 answer.
      const auto exact = at::round(resize(x.to(at::kDouble), p)).clamp(0, 255).to(at::kInt);
      EXPECT_LE((fixed - trip).abs().max().item<int>(), 1) << p.dump();
      EXPECT_LE((fixed - exact).abs().max().item<int>(), 1) << p.dump();
      EXPECT_LE((trip - exact).abs().max().item<int>(), 1) << p.dump();
    }
  }
}

TEST_F(ResizeTest, RunsOnMetaWithTheRightShapeAndDtype) {
  for (auto dtype : {at::kByte, at::kFloat}) {
    const auto x = at::empty({2, 3, 17, 11}, at::TensorOptions().dtype(dtype).device(at::kMeta));
    for (const auto& p : all_modes({23, 5})) {
      const auto y = resize(x, p);
      EXPECT_EQ(y.device().type(), c10::DeviceType::Meta) << p.dump();
      EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 3, 23, 5}));
      EXPECT_EQ(y.scalar_type(), dtype);
    }
  }
}

TEST_F(ResizeTest, LeavesTheInputAlone) {
  const auto x = seeded_image({1, 3, 9, 9});
  const auto copy = x.clone();
  resize(x, {{"size", {9, 9}}});
  resize(x, {{"size", {4, 4}}, {"interpolation", "area"}});
  EXPECT_TRUE(at::equal(x, copy));
  // Same size is the identity, as a new tensor.
  const auto same = resize(x, {{"size", {9, 9}}, {"interpolation", "bicubic"}});
  EXPECT_TRUE(at::equal(same, x));
  EXPECT_NE(same.data_ptr(), x.data_ptr());
}

TEST_F(ResizeTest, BadParametersNameTheField) {
  const auto x = seeded_image({1, 3, 9, 9});
  const std::vector<std::pair<json, std::string>> bad = {
      {json::object(), ""},
      {{{"size", {0, 4}}}, "/size/0"},
      {{{"size", {4}}}, "/size"},
      {{{"size", {4, 4}}, {"interpolation", "lanczos"}}, "/interpolation"},
      {{{"size", {4, 4}}, {"interpolation", "nearest"}, {"align_corners", true}}, "/align_corners"},
      {{{"size", {4, 4}}, {"interpolation", "area"}, {"antialias", true}}, "/antialias"},
      {{{"size", {4, 4}}, {"uint8_strategy", "magic"}}, "/uint8_strategy"},
      {{{"size", {4, 4}}, {"antialias", "yes"}}, "/antialias"},
      {{{"size", {4, 4}}, {"scale", 2}}, "/scale"},
  };
  for (const auto& [params, pointer] : bad) {
    try {
      resize(x, params);
      ADD_FAILURE() << params.dump();
    } catch (const FieldError& e) {
      EXPECT_EQ(e.pointer(), pointer) << params.dump() << ": " << e.what();
    }
  }
  EXPECT_THROW(resize(at::rand({3, 9, 9}), {{"size", {4, 4}}}), InputError);
}

TEST_F(ResizeTest, RescaleSizeRuleAndExactTwoByTwoMeans) {
  const Transform* rescale = TransformRegistry::global().find("rescale");
  ASSERT_NE(rescale, nullptr);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const auto x = at::rand({1, 2, 17, 11}, gen).to(at::kDouble);
  // int(H * f): 17 * 0.5 = 8.5 -> 8, 11 * 0.7 = 7.7 -> 7.
  EXPECT_EQ(run(rescale, x, {{"factor", {0.5, 0.7}}}).sizes(), (std::vector<int64_t>{1, 2, 8, 7}));
  // An exact 2x bilinear downscale is the mean of each 2x2 block.
  const auto even = at::rand({1, 2, 8, 6}, gen).to(at::kDouble);
  const auto half = run(rescale, even, {{"factor", 0.5}});
  EXPECT_TRUE(at::allclose(half, at::avg_pool2d(even, {2, 2}), 0, 1e-15));
  // 2x bilinear up: out[0] = in[0], out[1] = .75 in[0] + .25 in[1], ...
  const auto row = at::tensor(std::vector<double>{0, 4, 8}).reshape({1, 1, 1, 3});
  const auto up = run(rescale, row, {{"factor", {1.0, 2.0}}});
  EXPECT_EQ(values(up), (std::vector<double>{0, 1, 3, 5, 7, 8}));
}

TEST_F(ResizeTest, RescaleAntialiasIsKorniasBlurThenResize) {
  const Transform* rescale = TransformRegistry::global().find("rescale");
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
  const auto x = at::rand({1, 3, 24, 20}, gen).to(at::kDouble);
  // f = 2 on both axes: sigma (2 - 1) / 2 = 0.5, kernel int(max(2, 3)) = 3.
  const auto ours = run(rescale, x, {{"factor", 0.5}, {"antialias", true}});
  ResizeConfig c;
  c.height = 12;
  c.width = 10;
  const auto expected = resize_image(gaussian_blur(x, 3, 3, {{0.5, 0.5}}, Border::kReflect), c);
  EXPECT_TRUE(at::equal(ours, expected));
  // The 3x3, sigma 0.5 taps of the spec: [0.1065070, 0.7869860, 0.1065070].
  auto impulse = at::zeros({1, 1, 1, 5}, at::kDouble);
  impulse[0][0][0][2] = 1.0;
  const auto taps = values(gaussian_blur(impulse, 1, 3, {{0.5, 0.5}}, Border::kConstant));
  EXPECT_NEAR(taps[1], 0.1065070, 1e-7);
  EXPECT_NEAR(taps[2], 0.7869860, 1e-7);
  EXPECT_NEAR(taps[3], 0.1065070, 1e-7);
  // Upscaling ignores antialias; a constant stays constant.
  const auto flat = at::full({1, 1, 9, 9}, 0.25, at::kDouble);
  EXPECT_TRUE(at::allclose(run(rescale, flat, {{"factor", 0.3}, {"antialias", true}}),
                           at::full({1, 1, 2, 2}, 0.25, at::kDouble)));
  EXPECT_TRUE(at::equal(run(rescale, x, {{"factor", 2.0}, {"antialias", true}}),
                        run(rescale, x, {{"factor", 2.0}})));
}

TEST_F(ResizeTest, RescaleRejectsEmptyOutputs) {
  const Transform* rescale = TransformRegistry::global().find("rescale");
  try {
    run(rescale, seeded_image({1, 1, 4, 4}), {{"factor", 0.1}});
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/factor");
    EXPECT_NE(std::string(e.what()).find("0x0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace devparity

namespace devparity {
namespace {

// uint8_strategy cpu_kernel against LibTorch's own uint8 kernel, where the
// LibTorch in hand has one (2.x; 1.13's CPU interpolate rejects uint8
// bilinear): bit for bit, every mode, odd sizes both ways.
TEST_F(ResizeTest, CpuKernelIsLibTorchsUint8KernelBitForBit) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(4);
  const auto x = at::randint(0, 256, {2, 3, 19, 23}, gen).to(at::kByte);
  try {
    run(interpolate_, x, {{"size", {7, 9}}, {"interpolation", "bilinear"}});
  } catch (const std::exception& e) {
    GTEST_SKIP() << "this LibTorch has no CPU uint8 bilinear kernel to compare with: " << e.what();
  }
  int compared = 0;
  for (const auto& size : {std::vector<int64_t>{40, 9}, std::vector<int64_t>{7, 50},
                           std::vector<int64_t>{3, 2}, std::vector<int64_t>{19, 61}}) {
    for (auto p : all_modes(size)) {
      if (p["interpolation"] != "bilinear" && p["interpolation"] != "bicubic") continue;
      const auto theirs = run(interpolate_, x, p);
      p["uint8_strategy"] = "cpu_kernel";
      EXPECT_TRUE(at::equal(resize(x, p), theirs)) << p.dump();
      ++compared;
    }
  }
  EXPECT_EQ(compared, 32);
}

// The kernel's own structure, on any LibTorch: a bicubic upscale clips the
// overshoot of its horizontal pass, so it differs from one rounding of the
// exact value by more than 1, and its notes say so (Note [Intermediate
// rounding]): the value it rounded gives its output, and the direct value
// (no uint8 intermediate) rounds to the fixed-point result.
TEST_F(ResizeTest, CpuKernelRoundsBetweenItsPassesAndSaysSo) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(5);
  const auto x = at::randint(0, 256, {1, 3, 17, 11}, gen).to(at::kByte);
  const json p = {{"size", {64, 96}}, {"interpolation", "bicubic"}};
  auto fixed = p;
  fixed["uint8_strategy"] = "fixed_point";
  const auto* t = resize_;
  auto g = at::make_generator<at::CPUGeneratorImpl>(0);
  ExecuteOptions options;
  options.keep_unrounded = true;
  const auto e = execute(*t, x, t->sample(p, x.sizes(), g), at::kCPU, options);
  ASSERT_TRUE(e.ran) << e.error.message;
  const auto one_rounding = resize(x, fixed).to(at::kInt);
  EXPECT_GT((e.output.to(at::kInt) - one_rounding).abs().max().item<int>(), 1);
  ASSERT_TRUE(e.unrounded.known());
  ASSERT_TRUE(e.unrounded.direct.defined());
  ASSERT_TRUE(e.unrounded.error.defined());
  EXPECT_TRUE(at::equal((e.unrounded.values + 0.5).floor().clamp(0, 255).to(at::kByte), e.output));
  const auto direct = (e.unrounded.direct + 0.5).floor().clamp(0, 255).to(at::kInt);
  EXPECT_LE((direct - one_rounding).abs().max().item<int>(), 1);
  // 15-bit weights: the per-element error of the last pass stays far below a level.
  EXPECT_LT(e.unrounded.error.max().item<double>(), 0.05);
}

}  // namespace
}  // namespace devparity
