// pad, resized_crop and erasing against exact values (numpy.pad's modes for
// the folds, torchvision's box rules for erasing).

#include "tests/support/apply_transform.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using test_support::apply_builtin;

at::Tensor row(std::vector<double> v) { return at::tensor(v, at::kDouble).reshape({1, 1, 1, -1}); }

TEST(Pad, ModesFoldLikeNumpyEvenWhenWiderThanTheImage) {
  const auto x = row({1, 2, 3});
  auto padded = [&](const char* mode) {
    return apply_builtin("pad", x, {{"padding", {5, 0, 2, 0}}, {"padding_mode", mode}});
  };
  // numpy.pad([1, 2, 3], (5, 2), mode) with numpy's names.
  EXPECT_TRUE(at::equal(padded("reflect"), row({2, 1, 2, 3, 2, 1, 2, 3, 2, 1})));
  EXPECT_TRUE(at::equal(padded("symmetric"), row({2, 3, 3, 2, 1, 1, 2, 3, 3, 2})));
  // Circular is x[p mod n] at any width (numpy's wrap restarts its chunks
  // for pads wider than the array: [1, 2, 1, 2, 3, ...]).
  EXPECT_TRUE(at::equal(padded("circular"), row({2, 3, 1, 2, 3, 1, 2, 3, 1, 2})));
  EXPECT_TRUE(at::equal(padded("edge"), row({1, 1, 1, 1, 1, 1, 2, 3, 3, 3})));
  EXPECT_TRUE(at::equal(padded("constant"), row({0, 0, 0, 0, 0, 1, 2, 3, 0, 0})));
}

TEST(Pad, PaddingFormsAndFill) {
  const auto u8 = at::full({1, 3, 2, 2}, 7, at::kByte);
  const auto all = apply_builtin("pad", u8, {{"padding", 1}, {"fill", 9}});
  EXPECT_EQ(all.sizes(), (c10::IntArrayRef{1, 3, 4, 4}));
  EXPECT_EQ(all[0][0][0][0].item<int64_t>(), 9);
  EXPECT_EQ(all[0][2][1][1].item<int64_t>(), 7);
  // [left/right, top/bottom] and [left, top, right, bottom].
  EXPECT_EQ(apply_builtin("pad", u8, {{"padding", {2, 1}}}).sizes(), (c10::IntArrayRef{1, 3, 4, 6}));
  EXPECT_EQ(apply_builtin("pad", u8, {{"padding", {1, 2, 3, 4}}}).sizes(), (c10::IntArrayRef{1, 3, 8, 6}));
  EXPECT_THROW(apply_builtin("pad", u8, {{"padding", {1, 2, 3}}}), std::exception);
}

TEST(ResizedCrop, IsResizeOfTheCrop) {
  const auto x = seeded_image({2, 3, 17, 11});
  const auto crop = apply_builtin("crop", x, {{"top", 3}, {"left", -2}, {"height", 9}, {"width", 8}});
  for (const char* mode : {"nearest", "bilinear", "bicubic", "area"}) {
    SCOPED_TRACE(mode);
    const auto direct = apply_builtin("resized_crop", x, {{"top", 3}, {"left", -2}, {"height", 9}, {"width", 8},
                                                          {"size", {12, 6}}, {"interpolation", mode}});
    EXPECT_TRUE(at::equal(direct, apply_builtin("resize", crop, {{"size", {12, 6}}, {"interpolation", mode}})));
  }
  const auto same = apply_builtin("resized_crop", x, {{"height", 17}, {"width", 11}, {"size", {17, 11}},
                                                      {"interpolation", "nearest"}});
  EXPECT_TRUE(at::equal(same, x));
}

// uint8: the same strategies as resize, each the resize of the crop (an exact
// 4x upscale, where the two differ at ties).
TEST(ResizedCrop, TakesResizesUint8Strategy) {
  const auto x = seeded_image({2, 3, 17, 11}, at::kByte);
  const nlohmann::json box = {{"top", 3}, {"left", -2}, {"height", 9}, {"width", 8}};
  const auto crop = apply_builtin("crop", x, box);
  at::Tensor fixed, round_trip;
  for (const char* strategy : {"fixed_point", "float_round_trip"}) {
    SCOPED_TRACE(strategy);
    nlohmann::json p = box;
    p.update({{"size", {36, 32}}, {"interpolation", "bilinear"}, {"uint8_strategy", strategy}});
    const auto direct = apply_builtin("resized_crop", x, p);
    EXPECT_TRUE(at::equal(direct, apply_builtin("resize", crop, {{"size", {36, 32}}, {"interpolation", "bilinear"},
                                                                 {"uint8_strategy", strategy}})));
    (std::string(strategy) == "fixed_point" ? fixed : round_trip) = direct;
  }
  EXPECT_FALSE(at::equal(fixed, round_trip)) << "the two strategies differ at ties: the parameter is used";
  EXPECT_THROW(apply_builtin("resized_crop", x, {{"height", 9}, {"width", 8}, {"size", {4, 4}},
                                                 {"uint8_strategy", "pillow"}}),
               std::exception);
}

TEST(Erasing, ExplicitBoxTakesTheValueAndNothingElseChanges) {
  const auto x = seeded_image({2, 3, 9, 8}, at::kDouble);
  const auto y = apply_builtin("erasing", x, {{"box", {2, 3, 4, 2}}, {"value", {1, 0, 0.5}}});
  const auto box = y.narrow(2, 2, 4).narrow(3, 3, 2);
  EXPECT_TRUE(at::equal(box.select(1, 0), at::ones_like(box.select(1, 0))));
  EXPECT_TRUE(at::equal(box.select(1, 2), at::full_like(box.select(1, 2), 0.5)));
  auto restored = y.clone();
  restored.narrow(2, 2, 4).narrow(3, 3, 2).copy_(x.narrow(2, 2, 4).narrow(3, 3, 2));
  EXPECT_TRUE(at::equal(restored, x));
  EXPECT_THROW(apply_builtin("erasing", x, {{"box", {6, 0, 4, 2}}}), std::exception);  // leaves the image
  // An empty box (what torchvision draws on tiny images) erases nothing.
  EXPECT_TRUE(at::equal(apply_builtin("erasing", x, {{"box", {0, 0, 0, 0}}}), x));
  const auto one = seeded_image({1, 3, 1, 1});
  for (uint64_t seed = 0; seed < 5; ++seed) {
    EXPECT_TRUE(at::equal(apply_builtin("erasing", one, {{"p", 1.0}, {"value", 5.0}}, seed), one));
  }
}

TEST(Erasing, DrawnBoxesFollowTheRules) {
  const auto x = seeded_image({1, 3, 40, 30});
  EXPECT_TRUE(at::equal(apply_builtin("erasing", x, {{"p", 0.0}}), x));
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const auto y = apply_builtin("erasing", x, {{"p", 1.0}, {"value", 2.0}}, seed);
    const auto erased = y.eq(2.0)[0][0];
    const auto rows = erased.any(1).sum().item<int64_t>(), cols = erased.any(0).sum().item<int64_t>();
    // A box: its element count is rows x cols; h < H, w < W; area within the
    // scale range up to rounding of h and w.
    EXPECT_EQ(erased.sum().item<int64_t>(), rows * cols);
    EXPECT_LT(rows, 40);
    EXPECT_LT(cols, 30);
    EXPECT_LE(rows * cols, 0.33 * 1200 * 1.3 + 40);
  }
}

}  // namespace
}  // namespace devparity
