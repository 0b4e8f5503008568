// plasma_brightness and plasma_shadow: the diamond-square field's range, one field per
// sample shared by the channels, and the shadow's share growing with the quantity.

#include "tests/support/apply_transform.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

using test_support::apply_builtin;

TEST(Plasma, FieldsSpanTheUnitRangeAndShadeBelowTheQuantity) {
  const auto x = at::full({2, 3, 33, 20}, 0.5, at::kDouble);
  // Brightness: x + intensity P with P min-max normalised: exactly 0 and 1
  // occur, so the output spans [0.5, 0.5 + intensity].
  const auto b = apply_builtin("plasma_brightness", x, {{"intensity", 0.25}, {"seed", 4}});
  EXPECT_NEAR(b.min().item<double>(), 0.5, 1e-7);
  EXPECT_NEAR(b.max().item<double>(), 0.75, 1e-7);
  EXPECT_TRUE(at::equal(b.select(1, 0), b.select(1, 2)));  // one field for all channels
  EXPECT_FALSE(at::equal(b[0], b[1]));                      // one per sample
  // Shadow: x or x (1 + intensity), the darker share growing with quantity.
  const auto few = apply_builtin("plasma_shadow", x, {{"intensity", -1.0}, {"quantity", 0.2}, {"seed", 4}});
  const auto many = apply_builtin("plasma_shadow", x, {{"intensity", -1.0}, {"quantity", 0.8}, {"seed", 4}});
  EXPECT_TRUE(at::equal(few.eq(0.0).logical_or(few.eq(0.5)), at::ones_like(few, at::kBool)));
  EXPECT_LT(few.eq(0.0).sum().item<int64_t>(), many.eq(0.0).sum().item<int64_t>());
  EXPECT_TRUE(at::equal(apply_builtin("plasma_shadow", x, {{"intensity", 0.0}}), x));
}

}  // namespace
}  // namespace devparity
