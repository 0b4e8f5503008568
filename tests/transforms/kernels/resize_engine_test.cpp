#include "harness/transforms/kernels/resize_engine.h"

#include "harness/base/error.h"
#include "harness/base/json_reader.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity::resample {
namespace {

std::vector<int64_t> positions(int64_t size, int64_t front, int64_t length, Border border,
                               at::Tensor* valid = nullptr) {
  const auto p = border_positions(size, front, length, border, at::TensorOptions().dtype(at::kLong), valid);
  return std::vector<int64_t>(p.data_ptr<int64_t>(), p.data_ptr<int64_t>() + p.numel());
}

TEST(ResampleTest, BorderPositions) {
  // Positions -2 .. 5 of an axis of 4 pixels.
  EXPECT_EQ(positions(4, 2, 8, Border::kReflect), (std::vector<int64_t>{2, 1, 0, 1, 2, 3, 2, 1}));
  EXPECT_EQ(positions(4, 2, 8, Border::kReplicate), (std::vector<int64_t>{0, 0, 0, 1, 2, 3, 3, 3}));
  EXPECT_EQ(positions(4, 2, 8, Border::kCircular), (std::vector<int64_t>{2, 3, 0, 1, 2, 3, 0, 1}));
  at::Tensor valid;
  EXPECT_EQ(positions(4, 2, 8, Border::kConstant, &valid), (std::vector<int64_t>{0, 0, 0, 1, 2, 3, 3, 3}));
  EXPECT_TRUE(at::equal(valid, at::tensor(std::vector<uint8_t>{0, 0, 1, 1, 1, 1, 0, 0})));
  // Reflect keeps mirroring far outside: period 2 * (3 - 1) = 4.
  EXPECT_EQ(positions(3, 5, 11, Border::kReflect),
            (std::vector<int64_t>{1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1}));
  EXPECT_EQ(positions(1, 2, 5, Border::kReflect), (std::vector<int64_t>{0, 0, 0, 0, 0}));
  // An unknown name never reaches the kernel: the configuration rejects it, listing the modes.
  const nlohmann::json given = {{"border", "mirror"}};
  ObjectReader r(given);
  try {
    read_mode(r, "border", Border::kReflect, {Border::kReflect, Border::kReplicate});
    FAIL() << "mirror was accepted";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/border");
    EXPECT_NE(std::string(e.what()).find("reflect"), std::string::npos) << e.what();
  }
}

TEST(ResampleTest, TakeWindowIsTakePositions) {
  // Every border, windows longer and shorter on either side, an axis of one
  // pixel; along H (advanced indexing) and W (gather). A window not made for
  // this axis (front past it) falls back to gathering.
  const auto x = at::arange(2 * 5 * 7, at::kFloat).reshape({1, 2, 5, 7});
  for (auto border : {Border::kReflect, Border::kSymmetric, Border::kReplicate, Border::kCircular, Border::kConstant}) {
    for (int64_t dim : {2, 3}) {
      const int64_t size = x.size(dim);
      for (auto [front, back] : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {2, 2}, {0, 3}, {4, 0}, {9, 11}}) {
        const auto w = border_positions(size, front, size + front + back, border, at::kLong, nullptr);
        EXPECT_TRUE(at::equal(take_window(x, dim, w, front), take_positions(x, dim, w)))
            << "dim " << dim << " front " << front << " back " << back;
      }
      const auto narrow = border_positions(size, 2, 3, border, at::kLong, nullptr);
      EXPECT_TRUE(at::equal(take_window(x, dim, narrow, 2), take_positions(x, dim, narrow)));
    }
    const auto one = x.narrow(3, 0, 1);
    const auto w = border_positions(1, 2, 5, border, at::kLong, nullptr);
    EXPECT_TRUE(at::equal(take_window(one, 3, w, 2), take_positions(one, 3, w)));
  }
  const auto m = at::empty({1, 3, 4, 6}, at::TensorOptions().device(at::kMeta));
  const auto wm = border_positions(6, 2, 10, Border::kReflect, m.options().dtype(at::kLong), nullptr);
  EXPECT_EQ(take_window(m, 3, wm, 2).sizes(), (std::vector<int64_t>{1, 3, 4, 10}));
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
