// Note [Replayed draws]: every device's run starts the global generators
// from the same seed, and the state before comes back after.

#include "harness/trace/replayed_draws.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(ReplayedDrawsTest, TheSameSeedGivesTheSameHostDraws) {
  const c10::Device cpu(c10::DeviceType::CPU), meta(c10::DeviceType::Meta);
  at::Tensor first, second;
  {
    const ReplayedDraws draws(42, cpu);
    first = at::rand({4});
  }
  {
    const ReplayedDraws draws(42, meta);  // the device does not change host draws
    second = at::rand({4});
  }
  EXPECT_TRUE(at::equal(first, second));
  const ReplayedDraws other(43, cpu);
  EXPECT_FALSE(at::equal(first, at::rand({4})));
}

TEST(ReplayedDrawsTest, TheGeneratorComesBackAsItWas) {
  const c10::Device cpu(c10::DeviceType::CPU);
  at::manual_seed(7);
  const auto expected = at::rand({3});
  at::manual_seed(7);
  {
    const ReplayedDraws draws(99, cpu);
    (void)at::rand({100});
  }
  EXPECT_TRUE(at::equal(at::rand({3}), expected));
}

}  // namespace
}  // namespace devparity
