#include "harness/subject/seeded_noise.h"

#include "harness/base/error.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

// The generator is ours, not LibTorch's: these bytes must never change, or
// reports (and conv2d's weights) from different releases stop being
// comparable. They are the top bytes of SplitMix64's published outputs for
// seed 0 (0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f,
// 0xf88bb8a8724c81ec).
TEST(SeededNoise, BytesAreSplitMix64s) {
  const auto x = seeded_noise({4}, at::kByte, 0);
  const auto* p = x.data_ptr<uint8_t>();
  EXPECT_EQ(std::vector<int>(p, p + 4), (std::vector<int>{0xe2, 0x6e, 0x06, 0xf8}));
  // Floating noise: the top 24 bits over 2^24 - 1, exact in float32 and the
  // same values in float64.
  const auto f = seeded_noise({4}, at::kFloat, 0);
  EXPECT_EQ(f[0].item<float>(), static_cast<float>(0xe220a8 / 16777215.0));
  EXPECT_TRUE(at::equal(seeded_noise({4}, at::kDouble, 0).to(at::kFloat), f));
}

TEST(SeededNoise, ShapeSeedAndDtype) {
  const auto a = seeded_noise({2, 3}, at::kFloat, 7);
  EXPECT_EQ(a.sizes(), (c10::IntArrayRef{2, 3}));
  EXPECT_TRUE(a.is_contiguous());
  EXPECT_TRUE(at::equal(a, seeded_noise({2, 3}, at::kFloat, 7)));
  EXPECT_FALSE(at::equal(a, seeded_noise({2, 3}, at::kFloat, 8)));
  EXPECT_GE(a.min().item<float>(), 0.0f);
  EXPECT_LE(a.max().item<float>(), 1.0f);
  EXPECT_EQ(seeded_noise({0, 3}, at::kByte, 1).numel(), 0);
  EXPECT_THROW(seeded_noise({2}, at::kLong, 0), InputError);
}

}  // namespace
}  // namespace devparity
