// Point-wise colour operations against their formulas (torchvision v2).

#include "tests/support/apply_transform.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <cmath>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

at::Tensor run(const std::string& name, const at::Tensor& x, const nlohmann::json& given = nlohmann::json::object()) {
  return test_support::apply_builtin(name, x, given);
}

// Every uint8 value once, as a 1x1x16x16 image.
at::Tensor all_bytes() { return at::arange(256, at::kLong).to(at::kByte).reshape({1, 1, 16, 16}); }

TEST(ColorBasics, InvertIsBoundMinusX) {
  const auto u8 = all_bytes();
  EXPECT_TRUE(at::equal(run("invert", u8), (255 - u8.to(at::kLong)).to(at::kByte)));
  const auto f = seeded_image({2, 3, 5, 4});
  EXPECT_TRUE(at::equal(run("invert", f), 1.0 - f));
  EXPECT_TRUE(at::equal(run("invert", run("invert", u8)), u8));
}

TEST(ColorBasics, SolarizeInvertsAtOrAboveTheThreshold) {
  const auto u8 = all_bytes();
  const auto v = u8.to(at::kLong);
  const auto half = run("solarize", u8, {{"threshold", 0.5}}).to(at::kLong);  // 127.5: 128 and up
  EXPECT_TRUE(at::equal(half, at::where(v >= 128, 255 - v, v)));
  EXPECT_TRUE(at::equal(run("solarize", u8, {{"threshold", 0.0}}), run("invert", u8)));
  const auto top = run("solarize", u8, {{"threshold", 1.0}}).to(at::kLong);  // only 255
  EXPECT_TRUE(at::equal(top, at::where(v >= 255, 255 - v, v)));
  const auto f = at::tensor({0.0, 0.25, 0.5, 0.75, 1.0}, at::kDouble).reshape({1, 1, 1, 5});
  const auto expected = at::tensor({0.0, 0.25, 0.5, 0.25, 0.0}, at::kDouble).reshape({1, 1, 1, 5});
  EXPECT_TRUE(at::equal(run("solarize", f, {{"threshold", 0.5}}), expected));
}

TEST(ColorBasics, PosterizeKeepsTheTopBits) {
  const auto u8 = all_bytes();
  EXPECT_TRUE(at::equal(run("posterize", u8, {{"bits", 4}}), u8.bitwise_and(0xF0)));
  EXPECT_TRUE(at::equal(run("posterize", u8, {{"bits", 1}}), u8.bitwise_and(0x80)));
  EXPECT_TRUE(at::equal(run("posterize", u8, {{"bits", 8}}), u8));
  const auto f = at::tensor({0.0, 0.49, 0.5, 0.99, 1.0}, at::kDouble).reshape({1, 1, 1, 5});
  const auto expected = at::tensor({0.0, 0.0, 0.5, 0.5, 0.5}, at::kDouble).reshape({1, 1, 1, 5});
  EXPECT_TRUE(at::equal(run("posterize", f, {{"bits", 1}}), expected));
}

TEST(ColorBasics, BrightnessScalesClampsAndTruncatesUint8) {
  const auto u8 = at::tensor({0, 1, 101, 170, 255}, at::kLong).to(at::kByte).reshape({1, 1, 1, 5});
  // 1.5x: 1.5 -> 1, 151.5 -> 151 (truncated, as torchvision's .to(uint8)), 255 saturates.
  const auto expected = at::tensor({0, 1, 151, 255, 255}, at::kLong).to(at::kByte).reshape({1, 1, 1, 5});
  EXPECT_TRUE(at::equal(run("adjust_brightness", u8, {{"factor", 1.5}}), expected));
  EXPECT_TRUE(at::equal(run("adjust_brightness", u8, {{"factor", 0.0}}), at::zeros_like(u8)));
  EXPECT_TRUE(at::equal(run("adjust_brightness", u8, {{"factor", 1.0}}), u8));
  const auto f = at::tensor({0.2, 0.8}, at::kDouble).reshape({1, 1, 1, 2});
  EXPECT_TRUE(at::allclose(run("adjust_brightness", f, {{"factor", 2.0}}),
                           at::tensor({0.4, 1.0}, at::kDouble).reshape({1, 1, 1, 2})));
}

TEST(Flips, ReverseColumnsOrRowsAndUndoThemselves) {
  const auto x = at::arange(2 * 3 * 4 * 5, at::kDouble).reshape({2, 3, 4, 5});
  const auto h = run("hflip", x);
  const auto v = run("vflip", x);
  for (int64_t j = 0; j < 5; ++j) EXPECT_TRUE(at::equal(h.select(3, j), x.select(3, 4 - j)));
  for (int64_t i = 0; i < 4; ++i) EXPECT_TRUE(at::equal(v.select(2, i), x.select(2, 3 - i)));
  EXPECT_TRUE(at::equal(run("hflip", h), x));
  EXPECT_TRUE(at::equal(run("vflip", v), x));
  const auto meta = run("hflip", at::empty({1, 3, 4, 5}, at::TensorOptions().device(at::kMeta)));
  EXPECT_TRUE(meta.is_meta());
  EXPECT_EQ(meta.sizes(), x.narrow(0, 0, 1).sizes());
}

TEST(Crops, CropTakesTheBoxAndZerosOutsideIt) {
  const auto x = at::arange(1 * 1 * 4 * 5, at::kDouble).reshape({1, 1, 4, 5}) + 1;
  const auto inside = run("crop", x, {{"top", 1}, {"left", 2}, {"height", 2}, {"width", 3}});
  EXPECT_TRUE(at::equal(inside, x.narrow(2, 1, 2).narrow(3, 2, 3)));
  // One row above and one column left of the image: zeros there.
  const auto outside = run("crop", x, {{"top", -1}, {"left", -1}, {"height", 2}, {"width", 2}});
  const auto expected = at::tensor({0.0, 0.0, 0.0, 1.0}, at::kDouble).reshape({1, 1, 2, 2});
  EXPECT_TRUE(at::equal(outside, expected));
}

TEST(ColorBasics, ToDtypeCastsOrScalesAsTorchvision) {
  const auto u8 = all_bytes();
  EXPECT_TRUE(at::equal(run("to_dtype", u8, {{"dtype", "float32"}}), u8.to(at::kFloat)));
  EXPECT_TRUE(at::equal(run("to_dtype", u8, {{"dtype", "float64"}, {"scale", true}}), u8.to(at::kDouble) * (1.0 / 255.0)));
  // Equal-width bins: trunc(x * 255.999), so 0.5 -> 127 and only 1.0 -> 255.
  const auto f = at::tensor({0.0, 0.5, 0.996, 0.9961, 1.0}, at::kDouble).reshape({1, 1, 1, 5});
  const auto expected = at::tensor({0, 127, 254, 255, 255}, at::kLong).to(at::kByte).reshape({1, 1, 1, 5});
  EXPECT_TRUE(at::equal(run("to_dtype", f, {{"dtype", "uint8"}, {"scale", true}}), expected));
  // uint8 -> float -> uint8 with scale is the identity on every value.
  const auto back = run("to_dtype", run("to_dtype", u8, {{"dtype", "float32"}, {"scale", true}}),
                        {{"dtype", "uint8"}, {"scale", true}});
  EXPECT_TRUE(at::equal(back, u8));
}

TEST(Crops, ABoxWhollyOutsideIsZerosStillOnTheGraph) {
  auto x = seeded_image({2, 3, 4, 4}, at::kDouble);
  x[0][0][0][0] = std::nan("");
  const auto leaf = x.clone().requires_grad_(true);
  const auto y = run("crop", leaf, {{"top", 10}, {"left", -9}, {"height", 3}, {"width", 2}});
  EXPECT_TRUE(at::equal(y, at::zeros({2, 3, 3, 2}, at::kDouble)));  // no NaN from the input
  ASSERT_TRUE(y.requires_grad());
  y.sum().backward();
  EXPECT_TRUE(at::equal(leaf.grad(), at::zeros_like(x)));
}

TEST(Crops, CenterCropRoundsTheAnchorHalfToEvenAndPadsWhenLarger) {
  const auto x = at::arange(1 * 1 * 7 * 6, at::kDouble).reshape({1, 1, 7, 6});
  // (7 - 2) / 2 = 2.5 -> 2 and (6 - 3) / 2 = 1.5 -> 2, as Python's round.
  EXPECT_TRUE(at::equal(run("center_crop", x, {{"size", {2, 3}}}), x.narrow(2, 2, 2).narrow(3, 2, 3)));
  // (7 - 4) / 2 = 1.5 -> 2.
  EXPECT_TRUE(at::equal(run("center_crop", x, {{"size", {4, 6}}}), x.narrow(2, 2, 4)));
  // Larger: 9x8 pads (9 - 7) // 2 = 1 row and (8 - 6) // 2 = 1 column before.
  const auto big = run("center_crop", x, {{"size", {9, 8}}});
  EXPECT_EQ(big.sizes(), (std::vector<int64_t>{1, 1, 9, 8}));
  EXPECT_TRUE(at::equal(big.narrow(2, 1, 7).narrow(3, 1, 6), x));
  EXPECT_EQ(big.sum().item<double>(), x.sum().item<double>());
  const auto meta = run("center_crop", at::empty({1, 3, 7, 6}, at::TensorOptions().device(at::kMeta)), {{"size", {9, 4}}});
  EXPECT_EQ(meta.sizes(), (std::vector<int64_t>{1, 3, 9, 4}));
}

}  // namespace
}  // namespace devparity
