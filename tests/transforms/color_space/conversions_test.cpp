// Colour-space conversions: known colours and round trips (Kornia's
// conventions; see color_space/conversions.cpp).

#include "tests/support/apply_transform.h"
#include "tests/support/seeded_image.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

using devparity::test_support::seeded_image;

namespace devparity {
namespace {

using test_support::apply_builtin;
using test_support::expect_close;
using test_support::pixels;

const auto kPrimaries = [] { return pixels({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.5, 0.5, 0.5}, {1, 1, 1}}); };

TEST(ColorSpaces, HsvOfThePrimariesAndBack) {
  const double third = 2 * M_PI / 3;
  expect_close(apply_builtin("rgb_to_hsv", kPrimaries()),
               pixels({{0, 1, 1}, {third, 1, 1}, {2 * third, 1, 1}, {0, 0, 0.5}, {0, 0, 1}}), 1e-12);
  const auto f = seeded_image({2, 3, 7, 5}, at::kDouble);
  expect_close(apply_builtin("hsv_to_rgb", apply_builtin("rgb_to_hsv", f)), f, 1e-12);
}

TEST(ColorSpaces, HlsOfThePrimariesAndBack) {
  const double third = 2 * M_PI / 3;
  expect_close(apply_builtin("rgb_to_hls", kPrimaries()),
               pixels({{0, 0.5, 1}, {third, 0.5, 1}, {2 * third, 0.5, 1}, {0, 0.5, 0}, {0, 1, 0}}), 1e-12);
  const auto f = seeded_image({2, 3, 7, 5}, at::kDouble);
  expect_close(apply_builtin("hls_to_rgb", apply_builtin("rgb_to_hls", f)), f, 1e-12);
}

TEST(ColorSpaces, YcbcrAndYuvOfWhiteAndBack) {
  expect_close(apply_builtin("rgb_to_ycbcr", pixels({{1, 1, 1}, {0, 0, 0}})), pixels({{1, 0.5, 0.5}, {0, 0.5, 0.5}}), 1e-12);
  expect_close(apply_builtin("rgb_to_yuv", pixels({{1, 1, 1}})), pixels({{1, 0, 0}}), 1e-12);
  const auto f = seeded_image({2, 3, 7, 5}, at::kDouble);
  // Kornia's rounded coefficients are inverse to about 1e-3.
  expect_close(apply_builtin("ycbcr_to_rgb", apply_builtin("rgb_to_ycbcr", f)), f, 2e-3);
  expect_close(apply_builtin("yuv_to_rgb", apply_builtin("rgb_to_yuv", f)), f, 3e-3);
  // ycbcr_to_rgb clamps: a strong red chroma cannot leave [0, 1].
  const auto out = apply_builtin("ycbcr_to_rgb", pixels({{0.5, 0.5, 1.0}}));
  EXPECT_EQ(out.max().item<double>(), 1.0);
}

TEST(ColorSpaces, LabOfWhiteBlackAndBack) {
  expect_close(apply_builtin("rgb_to_lab", pixels({{1, 1, 1}, {0, 0, 0}})), pixels({{100, 0, 0}, {0, 0, 0}}), 5e-3);
  // sRGB red: L* 53.24, a* 80.09, b* 67.20.
  expect_close(apply_builtin("rgb_to_lab", pixels({{1, 0, 0}})), pixels({{53.24, 80.09, 67.20}}), 0.02);
  const auto f = seeded_image({2, 3, 7, 5}, at::kDouble);
  expect_close(apply_builtin("lab_to_rgb", apply_builtin("rgb_to_lab", f)), f, 1e-4);
}

TEST(ColorSpaces, RejectOtherChannelCounts) {
  EXPECT_THROW(apply_builtin("rgb_to_hsv", seeded_image({1, 1, 4, 4})), std::exception);
}

}  // namespace
}  // namespace devparity
