#include "harness/transforms/random/draws.h"

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/generator_seed.h"

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
  const random_draws::PerSample s{"s", "[number per sample]", "an explicit value", 0, 9};
  EXPECT_EQ(*s.read(reader, 2), (std::vector<double>{1, 2}));
  EXPECT_THROW(s.read(reader, 3), FieldError);
  const random_draws::PerSample one{"one", "[number per sample]", "one for all", 0, 9};
  EXPECT_EQ(*one.read(reader, 3), (std::vector<double>{7, 7, 7}));
  const random_draws::PerSample below{"one", "[number per sample]", "out of bounds", 0, 5};
  EXPECT_THROW(below.read(reader, 3), FieldError);
  const random_draws::PerSample nothing{"nothing", "[number per sample]", "absent"};
  EXPECT_FALSE(nothing.read(reader, 3).has_value());
  EXPECT_FALSE(nothing.given(reader));
  EXPECT_TRUE(s.given(reader));
  EXPECT_EQ(s.doc().default_value, "drawn");
}

// A per-channel value: one for all channels or one each; a list of another
// length, an empty one or a value out of bounds is refused at the field.
TEST(SamplingTest, PerChannelValues) {
  const nlohmann::json v = {{"one", 2}, {"each", {1, 2, 3}}, {"two", {1, 2}}, {"none", nullptr}, {"empty", nlohmann::json::array()},
                            {"big", 9}};
  ObjectReader reader(v);
  const random_draws::PerChannel one{"one", "number or [per channel]", "0", 0, 5, "a value"};
  EXPECT_EQ(one.read_for(reader, 3, 0.0), (std::vector<double>{2, 2, 2}));
  EXPECT_EQ(*one.read(reader), (std::vector<double>{2}));
  const random_draws::PerChannel each{"each", "number or [per channel]", "0", 0, 5, "values"};
  EXPECT_EQ(each.read_for(reader, 3, 0.0), (std::vector<double>{1, 2, 3}));
  const random_draws::PerChannel absent{"absent", "number or [per channel]", "0", 0, 5, "the default"};
  EXPECT_EQ(absent.read_for(reader, 2, 4.0), (std::vector<double>{4, 4}));
  const random_draws::PerChannel none{"none", "number, [per channel] or null", "null", 0, 5, "null"};
  EXPECT_FALSE(none.read(reader).has_value());
  EXPECT_EQ(none.doc().default_value, "null");
  // Twins: what each must refuse.
  const random_draws::PerChannel two{"two", "number or [per channel]", "0", 0, 5, "two for three"};
  EXPECT_THROW(two.read_for(reader, 3, 0.0), FieldError);
  const random_draws::PerChannel empty{"empty", "number or [per channel]", "0", 0, 5, "none given"};
  EXPECT_THROW(empty.read(reader), FieldError);
  const random_draws::PerChannel big{"big", "number or [per channel]", "0", 0, 5, "out of bounds"};
  EXPECT_THROW(big.read(reader), FieldError);
}

// An explicit value stands for the gate; "apply" overrides both.
TEST(SamplingTest, ExplicitValuesStandForTheGate) {
  const random_draws::PerSample gain{"gain", "[number per sample]", "explicit gains", 0, 1};
  auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
  {
    const nlohmann::json given = {{"p", 0.0}, {"gain", 0.5}};
    ObjectReader r(given);
    EXPECT_EQ(random_draws::RandomGate::read(r, 3, gen, {&gain}).apply, std::vector<bool>(3, true));
  }
  {
    const nlohmann::json given = {{"p", 0.0}};
    ObjectReader r(given);
    EXPECT_EQ(random_draws::RandomGate::read(r, 3, gen, {&gain}).apply, std::vector<bool>(3, false));
  }
  {
    const nlohmann::json given = {{"gain", 0.5}, {"apply", {true, false, true}}};
    ObjectReader r(given);
    EXPECT_EQ(random_draws::RandomGate::read(r, 3, gen, {&gain}).apply, (std::vector<bool>{true, false, true}));
  }
}

// A drawn seed: the case's when given, else one draw_seed() from the trial's generator.
TEST(SamplingTest, DrawnSeedIsGivenOrDrawn) {
  const random_draws::DrawnSeed seed{"seed", "the field"};
  auto gen = at::make_generator<at::CPUGeneratorImpl>(11);
  auto same = at::make_generator<at::CPUGeneratorImpl>(11);
  const nlohmann::json absent = nlohmann::json::object();
  ObjectReader a(absent);
  EXPECT_EQ(seed.read(a, gen), draw_seed(same));
  const nlohmann::json given = {{"seed", 42}};
  ObjectReader g(given);
  EXPECT_EQ(seed.read(g, gen), 42u);
  const nlohmann::json negative = {{"seed", -1}};
  ObjectReader n(negative);
  EXPECT_THROW(seed.read(n, gen), FieldError);
  EXPECT_EQ(seed.doc().description, "seed of the field (reports give it, to replay)");
}

}  // namespace
}  // namespace devparity
