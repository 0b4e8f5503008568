// Warps against exact truths: quarter turns, integer shifts, identity maps,
// and each padding mode's reads outside the image (see geometry/affine_map.h, warp_options.h, kernels/grid_sampler.h).

#include "harness/subject/state.h"
#include "harness/transforms/kernels/grid_sampler.h"
#include "tests/support/apply_transform.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using test_support::apply_builtin;
using test_support::expect_close;

// The sampler against LibTorch's grid_sampler on the CPU, at random source
// positions in and around the image, for every mode pair.
TEST(Warp, SamplerMatchesGridSampleInEveryMode) {
  const auto x = seeded_image({2, 3, 7, 9}, at::kDouble);
  const auto sx = at::rand({2, 5, 6}, at::kDouble) * 13.0 - 2.0;
  const auto sy = at::rand({2, 5, 6}, at::kDouble) * 11.0 - 2.0;
  const auto grid = at::stack({(sx * 2 + 1) / 9.0 - 1, (sy * 2 + 1) / 7.0 - 1}, -1);
  // In grid_sampler's order of its integer codes.
  const std::vector<Interpolation> modes = {Interpolation::kBilinear, Interpolation::kNearest, Interpolation::kBicubic};
  const std::vector<Padding> paddings = {Padding::kZeros, Padding::kBorder, Padding::kReflection};
  for (int64_t m = 0; m < 3; ++m) {
    for (int64_t p = 0; p < 3; ++p) {
      SCOPED_TRACE(std::string(name_of(modes[m])) + " " + name_of(paddings[p]));
      expect_close(sampler::sample(x, sx, sy, modes[m], paddings[p]), at::grid_sampler(x, grid, m, p, false), 1e-12);
    }
  }
}

TEST(Warp, RotateQuarterTurnsAreExact) {
  const auto x = seeded_image({2, 3, 7, 7}, at::kDouble);
  for (const char* mode : {"nearest", "bilinear", "bicubic"}) {
    SCOPED_TRACE(mode);
    // Counter-clockwise as displayed (rows down): torch.rot90(x, 1, [2, 3]).
    expect_close(apply_builtin("rotate", x, {{"angle", 90}, {"interpolation", mode}}), at::rot90(x, 1, {2, 3}), 1e-12);
    expect_close(apply_builtin("rotate", x, {{"angle", 180}, {"interpolation", mode}}), x.flip({2, 3}), 1e-12);
  }
  const auto u8 = seeded_image({1, 3, 9, 9}, at::kByte);
  EXPECT_TRUE(at::equal(apply_builtin("rotate", u8, {{"angle", -90}}), at::rot90(u8, -1, {2, 3})));
}

TEST(Warp, RotateExpandHoldsTheWholeImage) {
  const auto x = seeded_image({1, 2, 5, 7}, at::kDouble);
  // A quarter turn of 5x7 expands to 7x5 and is rot90 exactly.
  const auto q = apply_builtin("rotate", x, {{"angle", 90}, {"expand", true}});
  EXPECT_TRUE(at::equal(q, at::rot90(x, 1, {2, 3})));
  // 45 degrees of 10x10: corners at +-7.07 around the centre, so the box
  // runs from floor(-2.07) to ceil(12.07): 16 pixels each way.
  const auto d = apply_builtin("rotate", seeded_image({1, 1, 10, 10}), {{"angle", 45}, {"expand", true}});
  EXPECT_EQ(d.sizes(), (c10::IntArrayRef{1, 1, 16, 16}));
  EXPECT_EQ(apply_builtin("rotate", seeded_image({0, 3, 5, 7}), {{"angle", 90}, {"expand", true}}).sizes(),
            (c10::IntArrayRef{0, 3, 7, 5}));
}

TEST(Warp, AffineIdentityKeepsTheImageInEveryMode) {
  const auto x = seeded_image({1, 2, 6, 5}, at::kDouble);
  for (const char* mode : {"nearest", "bilinear", "bicubic"}) {
    for (const char* padding : {"zeros", "border", "reflection"}) {
      SCOPED_TRACE(std::string(mode) + " " + padding);
      expect_close(apply_builtin("affine", x, {{"interpolation", mode}, {"padding_mode", padding}}), x, 1e-12);
    }
  }
}

TEST(Warp, IntegerTranslationShiftsAndPadsByMode) {
  const auto x = seeded_image({1, 1, 4, 6}, at::kDouble);
  const nlohmann::json shift = {{"translate", {3, 0}}, {"interpolation", "bilinear"}};
  auto with = [&](const char* padding) {
    auto p = shift;
    p["padding_mode"] = padding;
    return apply_builtin("affine", x, p);
  };
  const auto right = x.narrow(3, 0, 3);
  expect_close(with("zeros").narrow(3, 3, 3), right, 1e-12);
  EXPECT_EQ(with("zeros").narrow(3, 0, 3).abs().max().item<double>(), 0.0);
  expect_close(with("border").narrow(3, 0, 3), x.narrow(3, 0, 1).expand({1, 1, 4, 3}), 1e-12);
  // Reflection about the outer edge: reads at -1, -2, -3 come from 0, 1, 2.
  expect_close(with("reflection").narrow(3, 0, 3), x.narrow(3, 0, 3).flip({3}), 1e-12);
  // fill: the area from outside takes the colour.
  auto filled = shift;
  filled["fill"] = 0.25;
  filled["interpolation"] = "nearest";
  const auto f = apply_builtin("affine", x, filled);
  EXPECT_EQ(f.narrow(3, 0, 3).min().item<double>(), 0.25);
  EXPECT_EQ(f.narrow(3, 0, 3).max().item<double>(), 0.25);
}

TEST(Warp, ShearAlongXShiftsRowsByTheirHeight) {
  // torchvision's shear s (a number is [s, 0]): output (x, y) reads input
  // (x + tan(s) y, y) in centred coordinates; tan(45 deg) = 1.
  const auto x = seeded_image({1, 1, 5, 7}, at::kDouble);
  const auto y = apply_builtin("affine", x, {{"shear", 45}});
  EXPECT_TRUE(at::equal(y, apply_builtin("affine", x, {{"shear", {45, 0}}})));
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 7; ++j) {
      const int64_t src = j + (i - 2);
      const double expected = src >= 0 && src < 7 ? x[0][0][i][src].item<double>() : 0.0;
      EXPECT_EQ(y[0][0][i][j].item<double>(), expected) << i << "," << j;
    }
  }
}

TEST(Warp, PerspectiveIdentityAndTranslation) {
  const auto x = seeded_image({1, 3, 8, 6}, at::kDouble);
  const nlohmann::json corners = {{0, 0}, {5, 0}, {5, 7}, {0, 7}};
  expect_close(apply_builtin("perspective", x, {{"startpoints", corners}, {"endpoints", corners}}), x, 1e-9);
  nlohmann::json moved = corners;
  for (auto& c : moved) c[1] = c[1].get<double>() + 2;
  const auto down = apply_builtin("perspective", x, {{"startpoints", corners}, {"endpoints", moved}});
  expect_close(down.narrow(2, 2, 6), x.narrow(2, 0, 6), 1e-9);
  EXPECT_THROW(apply_builtin("perspective", x, {{"startpoints", corners}, {"endpoints", {{0, 0}, {1, 1}, {2, 2}, {3, 3}}}}),
               std::exception);
}

TEST(Warp, ElasticFieldIsRegisteredStateAndZeroAlphaIsIdentity) {
  const auto x = seeded_image({2, 3, 9, 7}, at::kDouble);
  expect_close(apply_builtin("elastic_transform", x, {{"alpha", 0}}), x, 1e-12);
  const auto a = apply_builtin("elastic_transform", x, {{"alpha", 20}, {"seed", 7}});
  const auto b = apply_builtin("elastic_transform", x, {{"alpha", 20}, {"seed", 7}});
  EXPECT_TRUE(at::equal(a, b));
  EXPECT_FALSE(at::allclose(a, x));
  register_builtins();
  const auto* t = dynamic_cast<const StatefulTransform*>(TransformRegistry::global().find("elastic_transform"));
  ASSERT_NE(t, nullptr);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const auto state = t->make_state(t->sample({{"seed", 7}}, x.sizes(), gen));
  EXPECT_EQ(state->tensor("displacement").sizes(), (c10::IntArrayRef{1, 2, 9, 7}));
}

TEST(Warp, ThinPlateSplineThroughItsControlPoints) {
  const auto x = seeded_image({2, 3, 9, 11}, at::kDouble);
  const nlohmann::json src = {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}, {0, 0}};
  const nlohmann::json same = {src, src};
  expect_close(apply_builtin("thin_plate_spline", x, {{"dst", same}, {"align_corners", true}}), x, 1e-12);
  // Every point moved right by 0.2 (one pixel of an 11-pixel row with corner
  // alignment): the spline is that translation, the output the shifted image.
  nlohmann::json moved = src;
  for (auto& pt : moved) pt[0] = pt[0].get<double>() + 0.2;
  const auto y = apply_builtin("thin_plate_spline", x, {{"dst", {moved, moved}}, {"align_corners", true}});
  expect_close(y.narrow(3, 1, 10), x.narrow(3, 0, 10), 1e-9);
  EXPECT_LE(y.narrow(3, 0, 1).abs().max().item<double>(), 1e-9);
  // Kornia's default (align_corners false) reads the corner pixel at
  // (-0.5, -0.5): a quarter of it, the rest zero padding.
  const auto k = apply_builtin("thin_plate_spline", x, {{"dst", same}});
  EXPECT_NEAR(k[0][0][0][0].item<double>(), 0.25 * x[0][0][0][0].item<double>(), 1e-9);
  EXPECT_THROW(apply_builtin("thin_plate_spline", x, {{"src", {{0, 0}, {1, 1}, {2, 2}}},
                                                      {"dst", {{{0, 0}, {1, 1}, {2, 2}}, {{0, 0}, {1, 1}, {2, 2}}}}}),
               std::exception);
}

TEST(Warp, Uint8RoundsBackAndEmptyBatchesPass) {
  const auto u8 = at::full({1, 1, 5, 5}, 200, at::kByte);
  const auto y = apply_builtin("affine", u8, {{"angle", 30}, {"interpolation", "bilinear"}, {"padding_mode", "border"}});
  EXPECT_TRUE(at::equal(y, u8));
  EXPECT_EQ(apply_builtin("rotate", seeded_image({0, 3, 5, 5}), {{"angle", 10}}).size(0), 0);
}

}  // namespace
}  // namespace devparity
