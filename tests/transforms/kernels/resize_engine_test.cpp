#include "harness/transforms/kernels/resize_engine.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity::resample {
namespace {

std::vector<int64_t> positions(int64_t size, int64_t front, int64_t length, const std::string& border,
                               at::Tensor* valid = nullptr) {
  const auto p = border_positions(size, front, length, border, at::TensorOptions().dtype(at::kLong), valid);
  return std::vector<int64_t>(p.data_ptr<int64_t>(), p.data_ptr<int64_t>() + p.numel());
}

TEST(ResampleTest, BorderPositions) {
  // Positions -2 .. 5 of an axis of 4 pixels.
  EXPECT_EQ(positions(4, 2, 8, "reflect"), (std::vector<int64_t>{2, 1, 0, 1, 2, 3, 2, 1}));
  EXPECT_EQ(positions(4, 2, 8, "replicate"), (std::vector<int64_t>{0, 0, 0, 1, 2, 3, 3, 3}));
  EXPECT_EQ(positions(4, 2, 8, "circular"), (std::vector<int64_t>{2, 3, 0, 1, 2, 3, 0, 1}));
  at::Tensor valid;
  EXPECT_EQ(positions(4, 2, 8, "constant", &valid), (std::vector<int64_t>{0, 0, 0, 1, 2, 3, 3, 3}));
  EXPECT_TRUE(at::equal(valid, at::tensor(std::vector<uint8_t>{0, 0, 1, 1, 1, 1, 0, 0})));
  // Reflect keeps mirroring far outside: period 2 * (3 - 1) = 4.
  EXPECT_EQ(positions(3, 5, 11, "reflect"),
            (std::vector<int64_t>{1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1}));
  EXPECT_EQ(positions(1, 2, 5, "reflect"), (std::vector<int64_t>{0, 0, 0, 0, 0}));
  EXPECT_THROW(positions(4, 1, 6, "mirror"), std::invalid_argument);
}

TEST(ResampleTest, AbsoluteValueRunsOnMeta) {
  const auto x = at::tensor(std::vector<double>{-2.5, 0.0, 3.0});
  EXPECT_TRUE(at::equal(absolute_value(x), x.abs()));
  const auto m = at::empty({3}, at::TensorOptions().device(at::kMeta));
  EXPECT_EQ(absolute_value(m).device().type(), c10::DeviceType::Meta);
}

TEST(ResampleTest, FixedPointRoundsTiesUpAndSaturates) {
  // Two taps of weight 0.5 on a 1x1x1x2 row -> one output: (a + b) / 2.
  TapTable t;
  t.index = at::tensor(std::vector<int64_t>{0, 1}).reshape({1, 2});
  t.weight = at::full({1, 1, 2}, 0.5, at::kDouble);
  auto row = [](uint8_t a, uint8_t b) {
    return at::tensor(std::vector<uint8_t>{a, b}).reshape({1, 1, 1, 2});
  };
  EXPECT_EQ(separable(row(2, 3), nullptr, &t, Uint8Path::kFixedPoint).item<int>(), 3);  // 2.5 -> 3
  EXPECT_EQ(separable(row(2, 3), nullptr, &t, Uint8Path::kFloatRoundTrip).item<int>(), 2);  // even
  // Overshooting weights saturate instead of wrapping.
  t.weight = at::tensor(std::vector<double>{1.5, -0.5}).reshape({1, 1, 2});
  EXPECT_EQ(separable(row(255, 0), nullptr, &t, Uint8Path::kFixedPoint).item<int>(), 255);
  EXPECT_EQ(separable(row(0, 255), nullptr, &t, Uint8Path::kFixedPoint).item<int>(), 0);
}

}  // namespace
}  // namespace devparity::resample
