#include "harness/base/rounding.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(RoundingTest, NothingIsKeptWithoutACapture) {
  const auto v = at::tensor({1.5, 2.25}, at::kDouble);
  const auto r = v.round().to(at::kByte);
  EXPECT_FALSE(unrounded_wanted());
  EXPECT_TRUE(note_unrounded(r, v, Rounding::kHalfEven).is_same(r));
}

TEST(RoundingTest, TheLastNotedTensorIsKeptForThatOutputOnly) {
  const auto v = at::tensor({1.5, 2.25, 3.75, 4.5}, at::kFloat).reshape({1, 1, 2, 2});
  const auto r = v.round().to(at::kByte);
  UnroundedCapture capture;
  EXPECT_TRUE(unrounded_wanted());
  note_unrounded(r, v, Rounding::kHalfEven, at::tensor({0.25}, at::kDouble));
  const auto u = capture.of(r);
  ASSERT_TRUE(u.known());
  EXPECT_EQ(u.values.scalar_type(), at::kDouble);
  EXPECT_TRUE(at::equal(u.values, v.to(at::kDouble)));
  EXPECT_EQ(u.rounding, Rounding::kHalfEven);
  EXPECT_DOUBLE_EQ(u.error_bound, 0.25);
  EXPECT_TRUE(capture.of(r.reshape({2, 2})).known()) << "a reshape that did not copy";
  EXPECT_EQ(capture.of(r.reshape({2, 2})).values.sizes(), (c10::IntArrayRef{2, 2}));
  EXPECT_FALSE(capture.of(r.clone()).known()) << "a copy may have been changed since";
  EXPECT_FALSE(capture.of(r.flip({3})).known());
}

TEST(RoundingTest, BoundariesFollowTheRounding) {
  Unrounded u;
  u.rounding = Rounding::kHalfUp;
  EXPECT_EQ(u.boundary(10), 10.5);
  u.rounding = Rounding::kTruncate;
  EXPECT_EQ(u.boundary(10), 11.0);
  EXPECT_EQ(rounding_name(Rounding::kTruncate), "truncation");
}

}  // namespace
}  // namespace devparity
