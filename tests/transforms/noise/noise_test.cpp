// gaussian_noise and salt_and_pepper: identities at zero strength, the statistics of the
// seeded field, and the field as registered state.

#include "harness/subject/state.h"
#include "tests/support/apply_transform.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

using test_support::apply_builtin;

TEST(Noise, GaussianNoiseHasTheAskedStatistics) {
  const auto x = at::full({1, 3, 128, 128}, 0.5, at::kDouble);
  EXPECT_TRUE(at::equal(apply_builtin("gaussian_noise", x, {{"sigma", 0.0}}), x));
  const auto y = apply_builtin("gaussian_noise", x, {{"sigma", 0.1}, {"mean", 0.02}, {"clip", false}, {"seed", 3}});
  const auto n = y - x;
  EXPECT_NEAR(n.mean().item<double>(), 0.02, 0.003);
  EXPECT_NEAR(n.std().item<double>(), 0.1, 0.005);
  EXPECT_TRUE(at::equal(y, apply_builtin("gaussian_noise", x, {{"sigma", 0.1}, {"mean", 0.02}, {"clip", false}, {"seed", 3}})));
  const auto clipped = apply_builtin("gaussian_noise", x, {{"sigma", 5.0}});
  EXPECT_GE(clipped.min().item<double>(), 0.0);
  EXPECT_LE(clipped.max().item<double>(), 1.0);
}

TEST(Noise, SaltAndPepperSetsTheDrawnFraction) {
  const auto x = at::full({2, 3, 64, 64}, 0.5, at::kFloat);
  EXPECT_TRUE(at::equal(apply_builtin("salt_and_pepper", x, {{"amount", 0.0}}), x));
  EXPECT_TRUE(at::equal(apply_builtin("salt_and_pepper", x, {{"amount", 1.0}, {"salt_vs_pepper", 1.0}}), at::ones_like(x)));
  EXPECT_TRUE(at::equal(apply_builtin("salt_and_pepper", x, {{"amount", 1.0}, {"salt_vs_pepper", 0.0}}), at::zeros_like(x)));
  const auto y = apply_builtin("salt_and_pepper", at::full({1, 3, 128, 128}, 100, at::kByte),
                               {{"amount", 0.2}, {"salt_vs_pepper", 0.25}});
  const double salt = y.eq(255).to(at::kDouble).mean().item<double>();
  const double pepper = y.eq(0).to(at::kDouble).mean().item<double>();
  EXPECT_NEAR(salt, 0.05, 0.01);
  EXPECT_NEAR(pepper, 0.15, 0.01);
  // One draw per pixel: the channels agree.
  EXPECT_TRUE(at::equal(y.select(1, 0), y.select(1, 2)));
}

TEST(Noise, TheFieldIsRegisteredState) {
  register_builtins();
  for (const char* name : {"gaussian_noise", "salt_and_pepper"}) {
    const auto* t = dynamic_cast<const StatefulTransform*>(TransformRegistry::global().find(name));
    ASSERT_NE(t, nullptr) << name;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
    const auto state = t->make_state(t->sample(nlohmann::json::object(), {2, 3, 5, 4}, gen));
    EXPECT_EQ(state->tensor("field").size(0), 2) << name;
  }
}

}  // namespace
}  // namespace devparity
