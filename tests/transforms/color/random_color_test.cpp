// color_jitter and channel_shuffle: explicit parameters reproduce the
// composition they stand for; drawn ones are valid and replayable.

#include "tests/support/apply_transform.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using test_support::apply_builtin;

TEST(ColorRandom, JitterComposesTheAdjustmentsInOrder) {
  const auto x = seeded_image({2, 3, 6, 5});
  EXPECT_TRUE(at::equal(apply_builtin("color_jitter", x), x));  // nothing set: identity
  const nlohmann::json p = {{"brightness", 0.5}, {"contrast", 0.5}, {"saturation", 0.5}, {"hue", 0.2},
                            {"order", {2, 0, 3, 1}},
                            {"factors", {{"brightness", 1.2}, {"contrast", 0.7}, {"saturation", 1.4}, {"hue", -0.1}}}};
  auto expected = apply_builtin("adjust_saturation", x, {{"factor", 1.4}});
  expected = apply_builtin("adjust_brightness", expected, {{"factor", 1.2}});
  expected = apply_builtin("adjust_hue", expected, {{"factor", -0.1}});
  expected = apply_builtin("adjust_contrast", expected, {{"factor", 0.7}});
  EXPECT_TRUE(at::equal(apply_builtin("color_jitter", x, p), expected));
}

TEST(ColorRandom, JitterDrawsWithinTheRanges) {
  register_builtins();
  const auto* t = TransformRegistry::global().find("color_jitter");
  for (uint64_t seed = 0; seed < 10; ++seed) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    const auto p = t->sample({{"brightness", 0.4}, {"hue", {-0.1, 0.05}}}, {1, 3, 4, 4}, gen);
    const double b = p.at("factors").at("brightness").get<double>(), h = p.at("factors").at("hue").get<double>();
    EXPECT_GE(b, 0.6);
    EXPECT_LE(b, 1.4);
    EXPECT_GE(h, -0.1);
    EXPECT_LE(h, 0.05);
    EXPECT_FALSE(p.at("factors").contains("contrast"));
    auto order = p.at("order").get<std::vector<int64_t>>();
    std::sort(order.begin(), order.end());
    EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3}));
  }
}

TEST(ColorRandom, ChannelShufflePermutesEachSample) {
  const auto x = seeded_image({2, 3, 4, 4});
  const auto y = apply_builtin("channel_shuffle", x, {{"permutation", {{2, 0, 1}, {0, 1, 2}}}, {"apply", {true, true}}});
  EXPECT_TRUE(at::equal(y[0][0], x[0][2]));
  EXPECT_TRUE(at::equal(y[0][1], x[0][0]));
  EXPECT_TRUE(at::equal(y[1], x[1]));
  EXPECT_TRUE(at::equal(apply_builtin("channel_shuffle", x, {{"p", 0.0}}), x));
  const auto drawn = apply_builtin("channel_shuffle", x, {{"p", 1.0}}, 5);
  // A permutation: the channel sums are the input's, reordered.
  for (int64_t b = 0; b < 2; ++b) {
    auto a = std::get<0>(x[b].sum({1, 2}).sort()), c = std::get<0>(drawn[b].sum({1, 2}).sort());
    EXPECT_TRUE(at::allclose(a, c));
  }
  EXPECT_THROW(apply_builtin("channel_shuffle", x, {{"permutation", {{0, 0, 1}, {0, 1, 2}}}}), std::exception);
}

TEST(ColorRandom, RgbShiftAddsPerChannelOffsetsAndClamps) {
  const auto x = seeded_image({2, 3, 4, 5}, at::kDouble);
  const auto y = apply_builtin("rgb_shift", x, {{"shifts", {{0.1, -0.2, 0.0}, {0.5, 0.5, 0.5}}}, {"apply", {true, false}}});
  EXPECT_TRUE(at::equal(y[0][0], (x[0][0] + 0.1).clamp(0, 1)));
  EXPECT_TRUE(at::equal(y[0][1], (x[0][1] - 0.2).clamp(0, 1)));
  EXPECT_TRUE(at::equal(y[0][2], x[0][2].clamp(0, 1)));
  EXPECT_TRUE(at::equal(y[1], x[1]));  // gated off
  register_builtins();
  const auto* t = TransformRegistry::global().find("rgb_shift");
  auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
  const auto p = t->sample({{"r_shift_limit", 0.1}, {"g_shift_limit", 0.0}, {"p", 1.0}}, {4, 3, 2, 2}, gen);
  for (const auto& s : p.at("shifts")) {
    EXPECT_LE(std::abs(s[0].get<double>()), 0.1);
    EXPECT_EQ(s[1].get<double>(), 0.0);
  }
}

}  // namespace
}  // namespace devparity
