// Every reference transform that rounds to uint8 notes the value it rounded
// (Note [Unrounded values]), and that value, rounded by the stated rule,
// gives its output exactly: what the parity check's rounding ties rest on.

#include "harness/base/rounding.h"
#include "harness/builtins.h"
#include "harness/subject/execution.h"
#include "harness/subject/transform_registry.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

using nlohmann::json;

struct Subject {
  std::string name;
  json params;
};

at::Tensor rounded_by(const Unrounded& u) {
  switch (u.rounding) {
    case Rounding::kHalfEven: return u.values.round();
    case Rounding::kHalfUp: return (u.values + 0.5).floor();
    case Rounding::kTruncate: return u.values.trunc();
  }
  return {};
}

TEST(UnroundedTest, EveryRoundingTransformNotesWhatItRounded) {
  register_builtins();
  const std::vector<Subject> subjects = {
      {"resize", {{"size", {23, 37}}, {"interpolation", "bilinear"}}},
      {"resize", {{"size", {9, 7}}, {"interpolation", "bicubic"}, {"antialias", true}}},
      {"resize", {{"size", {23, 37}}, {"uint8_strategy", "float_round_trip"}, {"interpolation", "bicubic"}}},
      {"resize", {{"size", {23, 37}}, {"uint8_strategy", "fixed_point"}, {"interpolation", "bicubic"}}},
      {"resized_crop", {{"height", 9}, {"width", 8}, {"size", {5, 13}}, {"interpolation", "bicubic"}}},
      {"gaussian_blur2d", {{"kernel_size", {5, 3}}, {"sigma", {1.5, 0.8}}}},
      {"rotate", {{"angle", 30}, {"interpolation", "bilinear"}}},
      {"affine", {{"angle", 20}, {"scale", 0.8}, {"interpolation", "bicubic"}}},
      {"adjust_brightness", {{"factor", 1.3}}},
      {"adjust_contrast", {{"factor", 0.5}}},
      {"adjust_saturation", {{"factor", 2.0}}},
      {"adjust_hue", {{"factor", 0.3}}},
      {"adjust_gamma", {{"gamma", 2.2}, {"gain", 1.0}}},
      {"rgb_to_grayscale", {{"num_output_channels", 3}}},
      {"adjust_sharpness", {{"factor", 2.0}}},
      {"autocontrast", json::object()},
      {"planckian_jitter", {{"p", 1.0}}},
      {"gaussian_illumination", {{"p", 1.0}}},
  };
  const auto x = at::randint(0, 256, {2, 3, 17, 11}, at::make_generator<at::CPUGeneratorImpl>(7)).to(at::kByte);
  for (const auto& s : subjects) {
    SCOPED_TRACE(s.name + " " + s.params.dump());
    const auto* t = TransformRegistry::global().find(s.name);
    ASSERT_NE(t, nullptr);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
    ExecuteOptions options;
    options.keep_unrounded = true;
    const auto e = execute(*t, x, t->sample(s.params, x.sizes(), gen), at::kCPU, options);
    ASSERT_TRUE(e.ran) << e.error.message;
    ASSERT_TRUE(e.unrounded.known());
    EXPECT_TRUE(at::equal(rounded_by(e.unrounded).clamp(0, 255).to(at::kByte), e.output));
    EXPECT_GE(e.unrounded.error_bound, 0.0);
    EXPECT_LT(e.unrounded.error_bound, 1e-2);
  }
  // Not asked: nothing kept.
  const auto* resize = TransformRegistry::global().find("resize");
  auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
  EXPECT_FALSE(execute(*resize, x, resize->sample({{"size", {5, 5}}}, x.sizes(), gen), at::kCPU).unrounded.known());
}

// Nearest warps note where they picked at an exact midpoint (Note [Sampling
// ties]): a rotation by -45 degrees about an integer centre has such picks,
// in uint8 and float32 alike; bilinear notes none.
TEST(UnroundedTest, NearestWarpsNoteTheirMidpointPicks) {
  register_builtins();
  const auto* rotate = TransformRegistry::global().find("rotate");
  ASSERT_NE(rotate, nullptr);
  const auto x = at::randint(0, 256, {2, 3, 11, 13}, at::make_generator<at::CPUGeneratorImpl>(7)).to(at::kByte);
  for (const auto& input : {x, x.to(at::kFloat) / 255.0}) {
    ExecuteOptions options;
    options.keep_unrounded = true;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
    const json nearest = {{"angle", -45}, {"center", {6, 5}}, {"interpolation", "nearest"}};
    const auto e = execute(*rotate, input, rotate->sample(nearest, input.sizes(), gen), at::kCPU, options);
    ASSERT_TRUE(e.ran) << e.error.message;
    ASSERT_TRUE(e.unrounded.ambiguous.defined());
    EXPECT_EQ(e.unrounded.ambiguous.sizes(), e.output.sizes());
    const auto picks = e.unrounded.ambiguous.sum().item<int64_t>();
    EXPECT_GT(picks, 0);
    EXPECT_LT(picks, e.output.numel() / 2);
    const json bilinear = {{"angle", -45}, {"center", {6, 5}}, {"interpolation", "bilinear"}};
    const auto b = execute(*rotate, input, rotate->sample(bilinear, input.sizes(), gen), at::kCPU, options);
    EXPECT_FALSE(b.unrounded.ambiguous.defined());
  }
}

}  // namespace
}  // namespace devparity
