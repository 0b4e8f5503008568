// Colour adjustments against hand-computed values and identities
// (torchvision v2 and Kornia semantics; see color/adjust.cpp).

#include "harness/base/error.h"
#include "tests/support/apply_transform.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using test_support::apply_builtin;
using test_support::expect_close;
using test_support::pixels;

at::Tensor bytes(std::vector<std::vector<double>> colours) { return pixels(std::move(colours), at::kByte); }

TEST(ColorAdjust, ContrastBlendsWithTheFlooredMeanGrey) {
  // L = 76.2195 and 29.07, floored to 76 and 29: mean 52.5; half contrast
  // gives x / 2 + 26.25, truncated.
  const auto x = bytes({{255, 0, 0}, {0, 0, 255}});
  EXPECT_TRUE(at::equal(apply_builtin("adjust_contrast", x, {{"factor", 0.5}}),
                        bytes({{153, 26, 26}, {26, 26, 153}})));
  const auto f = seeded_image({2, 3, 5, 4}, at::kDouble);
  expect_close(apply_builtin("adjust_contrast", f, {{"factor", 1.0}}), f, 0);
  const auto flat = apply_builtin("adjust_contrast", f, {{"factor", 0.0}});
  for (int64_t n = 0; n < 2; ++n) {
    const auto gray = (0.2989 * f[n][0] + 0.587 * f[n][1] + 0.114 * f[n][2]).mean();
    expect_close(flat[n], gray.expand({3, 5, 4}), 1e-12);
  }
}

TEST(ColorAdjust, SaturationBlendsWithThePixelGrey) {
  // L(200, 100, 50) = 124.18 -> 124; factor 2 gives 2x - 124, clamped.
  const auto x = bytes({{200, 100, 50}});
  EXPECT_TRUE(at::equal(apply_builtin("adjust_saturation", x, {{"factor", 0.0}}), bytes({{124, 124, 124}})));
  EXPECT_TRUE(at::equal(apply_builtin("adjust_saturation", x, {{"factor", 2.0}}), bytes({{255, 76, 0}})));
  const auto f = seeded_image({1, 3, 4, 4}, at::kDouble);
  expect_close(apply_builtin("adjust_saturation", f, {{"factor", 1.0}}), f, 0);
}

TEST(ColorAdjust, HueRotatesThePrimaries) {
  const auto rgb = pixels({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, at::kFloat);
  expect_close(apply_builtin("adjust_hue", rgb, {{"factor", 1.0 / 3.0}}), pixels({{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}), 1e-5);
  expect_close(apply_builtin("adjust_hue", rgb, {{"factor", -1.0 / 3.0}}), pixels({{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}), 1e-5);
  expect_close(apply_builtin("adjust_hue", rgb, {{"factor", 0.5}}), pixels({{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}), 1e-5);
  const auto grey = pixels({{0.25, 0.25, 0.25}}, at::kFloat);
  expect_close(apply_builtin("adjust_hue", grey, {{"factor", 0.3}}), grey, 1e-7);
  const auto f = seeded_image({2, 3, 6, 5});
  expect_close(apply_builtin("adjust_hue", f, {{"factor", 0.0}}), f, 2e-6);
  // uint8 leaves through trunc(y * 255.999): the primaries stay exact.
  EXPECT_TRUE(at::equal(apply_builtin("adjust_hue", bytes({{255, 0, 0}}), {{"factor", 0.5}}), bytes({{0, 255, 255}})));
}

TEST(ColorAdjust, GammaIsAPowerOfTheUnitImage) {
  const auto all = at::arange(256, at::kLong).to(at::kByte).reshape({1, 1, 16, 16});
  EXPECT_TRUE(at::equal(apply_builtin("adjust_gamma", all, {{"gamma", 1.0}}), all));
  const auto f = seeded_image({1, 3, 4, 4}, at::kDouble);
  expect_close(apply_builtin("adjust_gamma", f, {{"gamma", 2.0}}), f * f, 1e-15);
  expect_close(apply_builtin("adjust_gamma", f, {{"gamma", 1.0}, {"gain", 2.0}}), (2 * f).clamp(0, 1), 0);
  // (128 / 255)^2 * 255.999 = 64.5 -> 64.
  EXPECT_EQ(apply_builtin("adjust_gamma", bytes({{128}}), {{"gamma", 2.0}}).item<uint8_t>(), 64);
}

TEST(ColorAdjust, GrayscaleUsesTorchvisionWeightsAndTruncates) {
  // The weights sum to 0.9999: white becomes 254 in uint8, as in torchvision.
  EXPECT_EQ(apply_builtin("rgb_to_grayscale", bytes({{255, 255, 255}})).item<uint8_t>(), 254);
  const auto f = pixels({{0.5, 0.25, 1.0}});
  expect_close(apply_builtin("rgb_to_grayscale", f), pixels({{0.2989 * 0.5 + 0.587 * 0.25 + 0.114}}), 1e-15);
  const auto three = apply_builtin("rgb_to_grayscale", f, {{"num_output_channels", 3}});
  EXPECT_EQ(three.size(1), 3);
  expect_close(three, pixels({{1, 1, 1}}) * (0.2989 * 0.5 + 0.587 * 0.25 + 0.114), 1e-15);
}

TEST(ColorAdjust, ChannelRulesFollowTorchvision) {
  // One channel: hue and saturation leave it, grayscale passes it through
  // (repeated to 3 when asked); 2 channels and 2 output channels are errors.
  const auto grey = seeded_image({1, 1, 4, 4});
  EXPECT_TRUE(at::equal(apply_builtin("adjust_hue", grey, {{"factor", 0.3}}), grey));
  EXPECT_TRUE(at::equal(apply_builtin("adjust_saturation", grey, {{"factor", 0.3}}), grey));
  EXPECT_TRUE(at::equal(apply_builtin("rgb_to_grayscale", grey, {{"num_output_channels", 3}}), grey.expand({1, 3, 4, 4})));
  EXPECT_THROW(apply_builtin("adjust_hue", seeded_image({1, 2, 4, 4})), InputError);
  EXPECT_THROW(apply_builtin("adjust_contrast", seeded_image({1, 4, 4, 4})), InputError);
  EXPECT_THROW(apply_builtin("rgb_to_grayscale", seeded_image({1, 3, 4, 4}), {{"num_output_channels", 2}}), FieldError);
}

TEST(ColorAdjust, SharpnessBlendsTheInteriorWithTheSmoothing) {
  auto impulse = at::zeros({1, 1, 5, 5}, at::kDouble);
  impulse[0][0][2][2] = 13.0 / 255.0 * 255.0 / 13.0;  // 1
  const auto smooth = apply_builtin("adjust_sharpness", impulse, {{"factor", 0.0}});
  EXPECT_NEAR(smooth[0][0][2][2].item<double>(), 5.0 / 13.0, 1e-15);
  EXPECT_NEAR(smooth[0][0][1][1].item<double>(), 1.0 / 13.0, 1e-15);
  EXPECT_EQ(smooth[0][0][0][0].item<double>(), 0.0);  // the border keeps x
  const auto f = seeded_image({2, 3, 6, 7}, at::kDouble);
  expect_close(apply_builtin("adjust_sharpness", f, {{"factor", 1.0}}), f, 0);
  const auto sharp = apply_builtin("adjust_sharpness", f, {{"factor", 3.0}});
  expect_close(sharp.narrow(2, 0, 1), f.narrow(2, 0, 1), 0);
  const auto flat = at::full({1, 3, 6, 6}, 77, at::kByte);
  EXPECT_TRUE(at::equal(apply_builtin("adjust_sharpness", flat, {{"factor", 3.0}}), flat));
  const auto thin = seeded_image({1, 3, 2, 9});
  EXPECT_TRUE(at::equal(apply_builtin("adjust_sharpness", thin, {{"factor", 3.0}}), thin));
}

TEST(ColorAdjust, AutocontrastStretchesEachChannel) {
  const auto x = pixels({{0.2, 0.5, 0.3}, {0.6, 0.5, 0.4}, {0.4, 0.5, 0.35}});
  expect_close(apply_builtin("autocontrast", x), pixels({{0, 0.5, 0}, {1, 0.5, 1}, {0.5, 0.5, 0.5}}), 1e-12);
  // uint8 in float32 as torchvision: 10 / (10 * float(1 / 255)) = 254.99998,
  // truncated to 254; 127.49999 to 127.
  EXPECT_TRUE(at::equal(apply_builtin("autocontrast", bytes({{10}, {20}, {15}})), bytes({{0}, {254}, {127}})));
  EXPECT_TRUE(at::equal(apply_builtin("autocontrast", bytes({{0}, {255}, {15}})), bytes({{0}, {255}, {15}})));
}

TEST(ColorAdjust, EqualizeFollowsPil) {
  // 200 zeros, 300 of 100, 500 of 200: step = (1000 - 500) // 255 = 1,
  // lut[100] = cdf[99] = 200, lut[200] = cdf[199] = 500 -> 255.
  auto x = at::cat({at::zeros({200}, at::kByte), at::full({300}, 100, at::kByte), at::full({500}, 200, at::kByte)})
               .reshape({1, 1, 20, 50});
  const auto y = apply_builtin("equalize", x);
  EXPECT_TRUE(at::equal(y.flatten().narrow(0, 0, 200), at::zeros({200}, at::kByte)));
  EXPECT_TRUE(at::equal(y.flatten().narrow(0, 200, 300), at::full({300}, 200, at::kByte)));
  EXPECT_TRUE(at::equal(y.flatten().narrow(0, 500, 500), at::full({500}, 255, at::kByte)));
  // Every value once: the identity. Two values with the top one the
  // majority: step 0, unchanged.
  const auto all = at::arange(256, at::kLong).to(at::kByte).reshape({1, 1, 16, 16});
  EXPECT_TRUE(at::equal(apply_builtin("equalize", all), all));
  const auto two = at::cat({at::full({100}, 10, at::kByte), at::full({156}, 20, at::kByte)}).reshape({1, 1, 16, 16});
  EXPECT_TRUE(at::equal(apply_builtin("equalize", two), two));
}

TEST(ColorAdjust, SigmoidAndLogFollowKornia) {
  const auto x = pixels({{0.5}, {0.0}, {1.0}});
  const auto s = apply_builtin("adjust_sigmoid", x, {{"cutoff", 0.5}, {"gain", 10.0}});
  expect_close(s, pixels({{0.5}, {1 / (1 + std::exp(5.0))}, {1 / (1 + std::exp(-5.0))}}), 1e-15);
  expect_close(apply_builtin("adjust_sigmoid", x, {{"inv", true}}), 1.0 - s, 1e-15);
  expect_close(apply_builtin("adjust_log", x, {{"gain", 0.5}}), pixels({{0.5 * std::log2(1.5)}, {0}, {0.5}}), 1e-15);
  expect_close(apply_builtin("adjust_log", x, {{"gain", 2.0}, {"inv", true}, {"clip_output", false}}),
               pixels({{2 * (std::sqrt(2.0) - 1)}, {0}, {2}}), 1e-15);
}

TEST(ColorAdjust, NormalizeAndDenormalizeAreInverse) {
  const auto x = pixels({{0.485, 0.456, 0.406}, {0.714, 0.68, 0.631}});
  expect_close(apply_builtin("normalize", x), pixels({{0, 0, 0}, {1, 1, 1}}), 1e-12);
  const auto f = seeded_image({2, 3, 4, 5}, at::kDouble);
  const nlohmann::json p = {{"mean", {0.1, 0.2, 0.3}}, {"std", {0.5, 2.0, 4.0}}};
  expect_close(apply_builtin("denormalize", apply_builtin("normalize", f, p), p), f, 1e-15);
  EXPECT_THROW(apply_builtin("normalize", seeded_image({1, 2, 3, 3}), p), std::exception);  // 3 means, 2 channels
  // One value for all channels: a one-element list, or a bare number as torchvision takes it.
  const auto one = apply_builtin("normalize", f, {{"mean", {0.5}}, {"std", {0.25}}});
  expect_close(apply_builtin("normalize", f, {{"mean", 0.5}, {"std", 0.25}}), one, 0.0);
  expect_close(one, (f - 0.5) / 0.25, 1e-15);
  EXPECT_THROW(apply_builtin("normalize", f, {{"mean", 0.5}, {"std", 0.0}}), std::exception);  // std > 0
  EXPECT_THROW(apply_builtin("normalize", f, {{"mean", "0.5"}}), std::exception);
}

}  // namespace
}  // namespace devparity
