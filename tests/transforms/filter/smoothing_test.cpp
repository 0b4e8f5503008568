// box_blur, median_blur, motion_blur and unsharp_mask against exact values
// (Kornia's semantics; see filter/smoothing.cpp and filter/gaussian.cpp).

#include "tests/support/apply_transform.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using test_support::apply_builtin;

at::Tensor impulse(int64_t size, double value, c10::ScalarType dtype = at::kDouble) {
  auto x = at::zeros({1, 1, size, size}, dtype);
  x[0][0][size / 2][size / 2] = value;
  return x;
}

TEST(Smoothing, BoxBlurIsTheWindowMean) {
  const auto y = apply_builtin("box_blur", impulse(5, 9.0), {{"kernel_size", 3}, {"border", "constant"}});
  EXPECT_NEAR(y[0][0][1][1].item<double>(), 1.0, 1e-12);
  EXPECT_NEAR(y[0][0][2][3].item<double>(), 1.0, 1e-12);
  EXPECT_EQ(y[0][0][0][0].item<double>(), 0.0);
  // uint8 in fixed point: 90 / 9 = 10 exactly.
  const auto u = apply_builtin("box_blur", impulse(5, 90, at::kByte), {{"kernel_size", 3}, {"border", "constant"}});
  EXPECT_EQ(u[0][0][1][2].item<int64_t>(), 10);
  const auto flat = at::full({1, 2, 6, 5}, 0.3, at::kDouble);
  EXPECT_LE((apply_builtin("box_blur", flat, {{"kernel_size", {4, 5}}}) - flat).abs().max().item<double>(), 1e-15);
}

TEST(Smoothing, MedianRemovesImpulsesAndSeesTheZeroPadding) {
  EXPECT_EQ(apply_builtin("median_blur", impulse(5, 255, at::kByte), {{"kernel_size", 3}}).max().item<int64_t>(), 0);
  // A flat 100: a corner window holds 4 values and 5 zeros (lower median 0),
  // an edge window 6 and 3 (100).
  const auto y = apply_builtin("median_blur", at::full({1, 1, 4, 4}, 100, at::kByte), {{"kernel_size", 3}});
  EXPECT_EQ(y[0][0][0][0].item<int64_t>(), 0);
  EXPECT_EQ(y[0][0][0][1].item<int64_t>(), 100);
  EXPECT_EQ(y[0][0][1][1].item<int64_t>(), 100);
  EXPECT_THROW(apply_builtin("median_blur", y, {{"kernel_size", 4}}), std::exception);
}

TEST(Smoothing, MotionKernelIsARotatedWeightedLine) {
  // Horizontal, uniform: an impulse spreads over its row.
  const auto flat = apply_builtin("motion_blur", impulse(7, 1.0), {{"kernel_size", 5}, {"angle", 0}});
  for (int64_t x = 1; x <= 5; ++x) EXPECT_NEAR(flat[0][0][3][x].item<double>(), 0.2, 1e-12);
  EXPECT_EQ(flat[0][0][2][3].item<double>(), 0.0);
  // Vertical after a quarter turn.
  const auto up = apply_builtin("motion_blur", impulse(7, 1.0), {{"kernel_size", 5}, {"angle", 90}});
  for (int64_t y = 1; y <= 5; ++y) EXPECT_NEAR(up[0][0][y][3].item<double>(), 0.2, 1e-12);
  // direction 1: weights 1, .75, .5, .25, 0 over 2.5; correlation puts the
  // first tap two columns to the right of the impulse.
  const auto d = apply_builtin("motion_blur", impulse(7, 1.0), {{"kernel_size", 5}, {"angle", 0}, {"direction", 1}});
  const double expected[5] = {0.0, 0.1, 0.2, 0.3, 0.4};
  for (int64_t x = 1; x <= 5; ++x) EXPECT_NEAR(d[0][0][3][x].item<double>(), expected[x - 1], 1e-12);
}

TEST(Smoothing, UnsharpMaskAddsTheDetail) {
  const auto x = seeded_image({1, 3, 9, 8}, at::kDouble);
  const nlohmann::json p = {{"kernel_size", {5, 3}}, {"sigma", {1.5, 0.8}}};
  const auto blurred = apply_builtin("gaussian_blur2d", x, p);
  EXPECT_TRUE(at::equal(apply_builtin("unsharp_mask", x, p), x + (x - blurred)));
  const auto flat = at::full({1, 1, 6, 6}, 0.25, at::kDouble);
  EXPECT_LE((apply_builtin("unsharp_mask", flat, p) - flat).abs().max().item<double>(), 1e-15);
}

}  // namespace
}  // namespace devparity
