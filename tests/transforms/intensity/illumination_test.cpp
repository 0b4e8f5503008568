// planckian_jitter and gaussian_illumination against the spec's numbers,
// Kornia's draws, and device-exact uint8.

#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/subject/transform_registry.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using nlohmann::json;

class IntensityTest : public ::testing::Test {
 protected:
  void SetUp() override { register_builtins(); }
  static const Transform& subject(const char* name) { return *TransformRegistry::global().find(name); }
  static json sample(const Transform& t, const at::Tensor& x, const json& given, uint64_t seed = 0) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    return t.sample(given, x.sizes(), gen);
  }
  static at::Tensor run(const Transform& t, const at::Tensor& x, const json& given, uint64_t seed = 0) {
    return t.apply(x, sample(t, x, given, seed));
  }
};

TEST_F(IntensityTest, PlanckianRatiosOfTheSpec) {
  const auto& t = subject("planckian_jitter");
  const auto x = at::full({3, 3, 2, 2}, 0.4f);
  const auto y = run(t, x, {{"idx", {0, 1, 24}}, {"p", 1.0}});
  // (R/G, B/G): bb[0] = (1.673616, 0.003227), bb[1] = (1.481019, 0.392596), bb[24] = (0.752848, 1.490006).
  const double ratios[3][2] = {{1.673616, 0.003227}, {1.481019, 0.392596}, {0.752848, 1.490006}};
  for (int b = 0; b < 3; ++b) {
    EXPECT_NEAR(y[b][0][0][0].item<float>(), std::min(1.0, 0.4 * ratios[b][0]), 2e-6) << b;
    EXPECT_FLOAT_EQ(y[b][1][0][0].item<float>(), 0.4f);
    EXPECT_NEAR(y[b][2][0][0].item<float>(), std::min(1.0, 0.4 * ratios[b][1]), 2e-6) << b;
  }
}

TEST_F(IntensityTest, PlanckianKorniaTestVector) {
  // Kornia's test: select_from=1, blackbody: R 0.4963 -> 0.7350, B 0.1759 -> 0.0691.
  const auto& t = subject("planckian_jitter");
  auto x = at::zeros({1, 3, 1, 1});
  x[0][0] = 0.4963f;
  x[0][1] = 0.3f;
  x[0][2] = 0.1759f;
  const auto y = run(t, x, {{"select_from", 1}, {"p", 1.0}});
  EXPECT_NEAR(y[0][0][0][0].item<float>(), 0.7350f, 1e-4);
  EXPECT_FLOAT_EQ(y[0][1][0][0].item<float>(), 0.3f);
  EXPECT_NEAR(y[0][2][0][0].item<float>(), 0.0691f, 1e-4);
}

TEST_F(IntensityTest, PlanckianDrawsAreKorniasAndReplayable) {
  const auto& t = subject("planckian_jitter");
  const auto x = seeded_image({6, 3, 4, 4});
  const auto params = sample(t, x, {{"p", 1.0}}, 42);
  // idx = long(U(0, 25)): trunc(rand(B) * 25) on a generator seeded like torch.manual_seed(42).
  auto gen = at::make_generator<at::CPUGeneratorImpl>(42);
  const auto r = at::rand({6}, gen);
  for (int64_t b = 0; b < 6; ++b) {
    EXPECT_EQ(params["idx"][b].get<int64_t>(), static_cast<int64_t>(r[b].item<float>() * 25.0f));
  }
  // Replaying the sampled parameters gives the same bytes.
  EXPECT_TRUE(at::equal(t.apply(x, params), t.apply(x, params)));
  const auto same = sample(t, x, {{"p", 1.0}, {"same_on_batch", true}}, 42);
  for (int64_t b = 1; b < 6; ++b) EXPECT_EQ(same["idx"][b], same["idx"][0]);
  // Explicit rows without "apply" are applied to every sample, whatever p and the seed.
  for (uint64_t seed : {0, 1, 2, 3}) {
    EXPECT_EQ(sample(t, x, {{"idx", {0, 1, 2, 3, 4, 5}}}, seed)["apply"],
              json(std::vector<bool>(6, true)))
        << seed;
  }
  // p = 0: every sample keeps its input.
  EXPECT_TRUE(at::equal(run(t, x, {{"p", 0.0}}), x));
  // p = 0.5 draws the gate first, then idx.
  const auto gated = sample(t, x, {{"p", 0.5}}, 7);
  auto g2 = at::make_generator<at::CPUGeneratorImpl>(7);
  const auto gate = at::rand({6}, g2);
  for (int64_t b = 0; b < 6; ++b) {
    EXPECT_EQ(gated["apply"][b].get<bool>(), gate[b].item<float>() < 0.5f);
  }
}

TEST_F(IntensityTest, PlanckianUint8IsOneRoundedMultiply) {
  const auto& t = subject("planckian_jitter");
  const auto x = seeded_image({2, 3, 5, 5}, at::kByte);
  const json given = {{"idx", {3, 20}}, {"p", 1.0}, {"mode", "CIED"}};
  const auto y = run(t, x, given);
  EXPECT_TRUE(at::equal(y.select(1, 1), x.select(1, 1)));  // G untouched
  // R = min(255, round_half_even(v * R/G)), the ratio divided in float32.
  const float r_ratio = 0.5021f / 0.4618f;  // CIED row 3
  for (int64_t i = 0; i < 5; ++i) {
    const float v = x[0][0][0][i].item<uint8_t>();
    EXPECT_EQ(y[0][0][0][i].item<uint8_t>(),
              static_cast<uint8_t>(std::min(255.0f, std::nearbyint(v * r_ratio))));
  }
}

TEST_F(IntensityTest, PlanckianRejectsBadParameters) {
  const auto& t = subject("planckian_jitter");
  const auto x = seeded_image({2, 3, 4, 4});
  for (const auto& [given, pointer] : std::vector<std::pair<json, std::string>>{
           {{{"mode", "tungsten"}}, "/mode"},
           {{{"select_from", {30}}}, "/select_from/0"},
           {{{"idx", {0, 25}}}, "/idx/1"},
           {{{"idx", {0, 1, 2}}}, "/idx"},
           {{{"p", 2}}, "/p"},
       }) {
    try {
      sample(t, x, given);
      ADD_FAILURE() << given.dump();
    } catch (const FieldError& e) {
      EXPECT_EQ(e.pointer(), pointer) << e.what();
    }
  }
  EXPECT_THROW(sample(t, seeded_image({1, 1, 4, 4}), json::object()), InputError);
  // Kornia accepts "cied" as CIED.
  EXPECT_EQ(sample(t, x, {{"mode", "cied"}})["mode"], "CIED");
}

TEST_F(IntensityTest, IlluminationKorniaTestVector) {
  // Kornia's test: seed 1, input 0.5, gain 0.5, p 1, 3x3.
  const auto& t = subject("gaussian_illumination");
  const auto x = at::full({1, 1, 3, 3}, 0.5f);
  const auto y = run(t, x, {{"gain_range", 0.5}, {"p", 1.0}}, 1);
  const float expected[3][3] = {{.7266f, 1.0f, .7266f}, {.6621f, .9121f, .6621f}, {.5f, .6911f, .5f}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(y[0][0][i][j].item<float>(), expected[i][j], 1e-4) << i << "," << j;
    }
  }
}

TEST_F(IntensityTest, IlluminationPeakWithKorniasEpsAndEvenShift) {
  const auto& t = subject("gaussian_illumination");
  const auto x = at::zeros({1, 1, 256, 256});
  const json spot = {{"gain", {0.1}}, {"center", {0.5}}, {"sigma", {0.5}}, {"sign", {1}}, {"p", 1.0}};
  const auto y = run(t, x, spot);
  // Even size: the +0.5 shift puts the peak between 127 and 128, symmetric.
  EXPECT_FLOAT_EQ(y[0][0][127][127].item<float>(), y[0][0][128][128].item<float>());
  EXPECT_EQ(y.argmax().item<int64_t>(), 127 * 256 + 127);
  // The min-max eps keeps the normalised peak below 1 (the spec: about 0.92-0.98 on 256^2).
  const float peak = y.max().item<float>() / 0.1f;
  EXPECT_GT(peak, 0.85f);
  EXPECT_LT(peak, 0.99f);
  // Odd size: one peak at round(W * 0.5).
  const auto odd = run(t, at::zeros({1, 1, 9, 9}), spot);
  EXPECT_EQ(odd.argmax().item<int64_t>(), 4 * 9 + 4);
  // Two-sided clamp: darkening a black image stays at 0, brightening white at 1.
  json dark = spot;
  dark["sign"] = {-1};
  EXPECT_EQ(run(t, x, dark).min().item<float>(), 0.0f);
  EXPECT_EQ(run(t, at::ones({1, 1, 8, 8}), spot).max().item<float>(), 1.0f);
}

TEST_F(IntensityTest, IlluminationDrawOrderAndExplicitValues) {
  const auto& t = subject("gaussian_illumination");
  const auto x = seeded_image({3, 3, 8, 8});
  const auto drawn = sample(t, x, {{"p", 1.0}}, 5);
  // gain, sigma x, center x, sigma y, center y, sign: six draws of B.
  auto gen = at::make_generator<at::CPUGeneratorImpl>(5);
  const auto gain = 0.01f + at::rand({3}, gen) * (0.15f - 0.01f);
  const auto sigma_x = 0.2f + at::rand({3}, gen) * (1.0f - 0.2f);
  EXPECT_FLOAT_EQ(drawn["gain"][1].get<float>(), gain[1].item<float>());
  EXPECT_FLOAT_EQ(drawn["sigma"][2][1].get<float>(), sigma_x[2].item<float>());
  // Explicit values replace the draws, one per sample or [y, x] pairs.
  const auto given = sample(t, x, {{"gain", {0.1, 0.2, 0.3}}, {"center", {0.5, {0.25, 0.75}, 0.5}},
                                   {"sigma", 0.5}, {"sign", {1, -1, 0}}, {"apply", {true, false, true}}});
  EXPECT_EQ(given["center"][1], json({0.25, 0.75}));
  EXPECT_EQ(given["sign"], json({1.0, -1.0, 1.0}));
  const auto y = t.apply(x, given);
  EXPECT_TRUE(at::equal(y[1], x[1]));  // gated off
  EXPECT_FALSE(at::equal(y[0], x[0]));
  // Explicit values without "apply" are applied to every sample whatever p and the seed.
  for (uint64_t seed : {0, 1, 2, 3}) {
    EXPECT_EQ(sample(t, x, {{"gain", 0.1}}, seed)["apply"], json({true, true, true})) << seed;
    EXPECT_EQ(sample(t, x, {{"sign", {1, 1, 1}}, {"p", 0.0}}, seed)["apply"],
              json({true, true, true}));
  }
}

TEST_F(IntensityTest, IlluminationUint8AndMeta) {
  const auto& t = subject("gaussian_illumination");
  const auto x = seeded_image({2, 3, 9, 7}, at::kByte);
  const auto params = sample(t, x, {{"p", 1.0}}, 3);
  const auto y = t.apply(x, params);
  const auto f = t.apply(x.to(at::kFloat) / 255.0, params);
  EXPECT_LE((y.to(at::kFloat) - at::round(f * 255.0)).abs().max().item<float>(), 1.0f);
  const auto m = t.apply(at::empty({2, 3, 9, 7}, at::TensorOptions().device(at::kMeta)), params);
  EXPECT_EQ(m.device().type(), c10::DeviceType::Meta);
  EXPECT_EQ(m.sizes(), (std::vector<int64_t>{2, 3, 9, 7}));
}

}  // namespace
}  // namespace devparity
