#include "harness/transforms/random/draws.h"

#include "harness/base/error.h"
#include "harness/base/json_reader.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

TEST(SamplingTest, UniformIsTorchsRsample) {
  auto a = at::make_generator<at::CPUGeneratorImpl>(9);
  auto b = at::make_generator<at::CPUGeneratorImpl>(9);
  const auto v = random_draws::uniform(a, 4, 0.2f, 1.0f, false);
  const auto expected = 0.2f + at::rand({4}, b) * (1.0f - 0.2f);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v[i], expected[i].item<float>());
  auto c = at::make_generator<at::CPUGeneratorImpl>(9);
  const auto same = random_draws::uniform(c, 4, 0.2f, 1.0f, true);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(same[i], v[0]);
}

TEST(SamplingTest, GateDrawsOnlyWhenItMust) {
  auto a = at::make_generator<at::CPUGeneratorImpl>(3);
  EXPECT_EQ(random_draws::gate(a, 3, 1.0, false), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(random_draws::gate(a, 2, 0.0, false), (std::vector<bool>{false, false}));
  // Nothing was drawn: the next value is the generator's first.
  auto fresh = at::make_generator<at::CPUGeneratorImpl>(3);
  EXPECT_EQ(at::rand({1}, a).item<float>(), at::rand({1}, fresh).item<float>());
  auto b = at::make_generator<at::CPUGeneratorImpl>(4);
  auto c = at::make_generator<at::CPUGeneratorImpl>(4);
  const auto g = random_draws::gate(b, 5, 0.5, false);
  const auto r = at::rand({5}, c);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(g[i], r[i].item<float>() < 0.5f);
}

TEST(SamplingTest, RangesAndPerSampleValues) {
  const nlohmann::json v = {{"r", {0.1, 0.3}}, {"x", 0.2}, {"bad", {0.5, 0.1}}, {"s", {1, 2}}, {"one", {7}}};
  ObjectReader reader(v);
  EXPECT_EQ(random_draws::read_range(reader, "r", {0, 1}, 0, 1), std::make_pair(0.1, 0.3));
  EXPECT_EQ(random_draws::read_range(reader, "x", {0, 1}, 0, 1), std::make_pair(0.2, 0.2));
  EXPECT_EQ(random_draws::read_range(reader, "absent", {0.4, 0.6}, 0, 1), std::make_pair(0.4, 0.6));
  EXPECT_THROW(random_draws::read_range(reader, "bad", {0, 1}, 0, 1), FieldError);
  EXPECT_EQ(*random_draws::read_per_sample(reader, "s", 2, 0, 9), (std::vector<double>{1, 2}));
  EXPECT_EQ(*random_draws::read_per_sample(reader, "one", 3, 0, 9), (std::vector<double>{7, 7, 7}));
  EXPECT_THROW(random_draws::read_per_sample(reader, "s", 3, 0, 9), FieldError);
  EXPECT_FALSE(random_draws::read_per_sample(reader, "nothing", 3, 0, 9).has_value());
}

}  // namespace
}  // namespace devparity
