#include "harness/transforms/kernels/fused_multiply_add.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace devparity::resample {
namespace {

float fma_of(float a, float b, float c) {
  const auto t = [](float v) { return at::full({1}, v, at::kFloat); };
  return fused_multiply_add(t(a), t(b), t(c)).item<float>();
}

uint32_t bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// The C library's fmaf rounds once; so must the tensor version, on every
// kind of operand the CUDA model feeds it.
TEST(FusedMultiplyAdd, RoundsOnceAsFmaf) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> weight(-1.0f, 2.0f), pixel(0.0f, 255.0f);
  std::uniform_int_distribution<int> exponent(-40, 8);
  for (int i = 0; i < 200000; ++i) {
    const float a = weight(rng) * std::ldexp(1.0f, exponent(rng) / 4);
    const float b = i % 2 == 0 ? std::nearbyint(pixel(rng)) : pixel(rng);
    const float c = pixel(rng) * (i % 3 == 0 ? -1.0f : 1.0f);
    ASSERT_EQ(bits(fma_of(a, b, c)), bits(std::fmaf(a, b, c))) << a << " * " << b << " + " << c;
  }
}

// The cases the float64 route gets wrong without the correction: a * b + c
// rounds to float64 exactly halfway between two floats, while the exact sum
// lies a little to one side, and ties-to-even then picks the other.
TEST(FusedMultiplyAdd, DoubleRoundingAtAMidpointIsCorrected) {
  const float u = std::ldexp(1.0f, -12), v = std::ldexp(1.0f, -15), ulp = std::ldexp(1.0f, -23);
  // 2^-24 (1 + u) (1 - u + u^2) = 2^-24 (1 + 2^-36): just above 1's midpoint.
  const float above_a = std::ldexp(1.0f + u, -24), above_b = 1.0f - u + u * u;
  EXPECT_EQ(bits(std::fmaf(above_a, above_b, 1.0f)), bits(1.0f + ulp));
  EXPECT_EQ(bits(fma_of(above_a, above_b, 1.0f)), bits(1.0f + ulp));
  // 2^-24 (1 + v) (1 - v) = 2^-24 (1 - 2^-30), onto 1 + 2^-23 (odd): just
  // below the midpoint, whose even neighbour is above.
  const float below_a = std::ldexp(1.0f + v, -24), below_b = 1.0f - v;
  EXPECT_EQ(bits(std::fmaf(below_a, below_b, 1.0f + ulp)), bits(1.0f + ulp));
  EXPECT_EQ(bits(fma_of(below_a, below_b, 1.0f + ulp)), bits(1.0f + ulp));
  // The same mirrored through zero.
  EXPECT_EQ(bits(fma_of(-above_a, above_b, -1.0f)), bits(-1.0f - ulp));
}

TEST(FusedMultiplyAdd, BroadcastsAndStaysFloat32) {
  const auto a = at::rand({2, 3}), b = at::rand({3}), c = at::rand({2, 1});
  const auto r = fused_multiply_add(a, b, c);
  EXPECT_EQ(r.scalar_type(), at::kFloat);
  EXPECT_EQ(r.sizes(), (c10::IntArrayRef{2, 3}));
  const auto meta = fused_multiply_add(a.to(at::kMeta), b.to(at::kMeta), c.to(at::kMeta));
  EXPECT_TRUE(meta.is_meta());
}

}  // namespace
}  // namespace devparity::resample
