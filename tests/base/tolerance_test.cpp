#include "harness/base/tolerance.h"

#include "harness/base/error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

using nlohmann::json;

TEST(ToleranceTest, DefaultsFollowAssertClose) {
  const auto f = default_tolerance(c10::ScalarType::Float);
  EXPECT_DOUBLE_EQ(f.rtol, 1.3e-6);
  EXPECT_DOUBLE_EQ(f.atol, 1e-5);
  EXPECT_TRUE(f.is_default);
  const auto u = default_tolerance(c10::ScalarType::Byte);
  EXPECT_EQ(u.atol, 0.0);
  EXPECT_EQ(u.rtol, 0.0);
  EXPECT_NE(u.describe(c10::ScalarType::Byte).find("exact match"), std::string::npos);
  EXPECT_NE(f.describe(c10::ScalarType::Float).find("assert_close"), std::string::npos);
}

TEST(ToleranceTest, TrueMeansDefault) {
  const auto t = resolve_tolerance(true, c10::ScalarType::Float);
  EXPECT_TRUE(t.is_default);
  EXPECT_DOUBLE_EQ(t.atol, 1e-5);
}

TEST(ToleranceTest, FlatOverrideAppliesToEveryDtypeAndKeepsItsReason) {
  const json setting = {{"atol", 1}, {"mismatch_fraction", 0.01}, {"outlier_atol", 2}, {"reason", "rounding"}};
  for (auto dtype : {c10::ScalarType::Byte, c10::ScalarType::Float}) {
    const auto t = resolve_tolerance(setting, dtype);
    EXPECT_FALSE(t.is_default);
    EXPECT_EQ(t.atol, 1.0);
    EXPECT_EQ(t.mismatch_fraction, 0.01);
    EXPECT_EQ(t.reason, "rounding");
    EXPECT_NE(t.describe(dtype).find("override: rounding"), std::string::npos);
  }
  // rtol keeps the dtype default when not given.
  EXPECT_DOUBLE_EQ(resolve_tolerance(setting, c10::ScalarType::Float).rtol, 1.3e-6);
}

TEST(ToleranceTest, PerDtypeOverrideLeavesOtherDtypesAtDefault) {
  const json setting = {{"uint8", {{"atol", 1}, {"reason", "fixed point"}}}};
  EXPECT_EQ(resolve_tolerance(setting, c10::ScalarType::Byte).atol, 1.0);
  EXPECT_TRUE(resolve_tolerance(setting, c10::ScalarType::Float).is_default);
}

TEST(ToleranceTest, OverrideWithoutReasonIsRejected) {
  try {
    resolve_tolerance(json{{"atol", 1}}, c10::ScalarType::Byte);
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_NE(std::string(e.what()).find("reason"), std::string::npos);
  }
  try {
    validate_tolerance(json{{"float32", {{"atol", 1}}}});
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/float32");
  }
}

TEST(ToleranceTest, BadFieldsAreNamed) {
  try {
    validate_tolerance(json{{"atol", -1}, {"reason", "x"}});
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/atol");
  }
  try {
    validate_tolerance(json{{"atoll", 1}, {"reason", "x"}});
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/atoll");
    EXPECT_TRUE(e.at_key());
  }
  try {
    validate_tolerance(json{{"uint8", {{"atol", 1}, {"reason", "x"}}}, {"floaty", {}}});
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/floaty");
  }
  EXPECT_THROW(validate_tolerance(json{{"mismatch_fraction", 2}, {"outlier_atol", 1}, {"reason", "x"}}),
               FieldError);
  EXPECT_THROW(validate_tolerance(json(3)), FieldError);
}

// An allowed fraction must say how far those elements may be: the two come together.
TEST(ToleranceTest, AFractionNeedsItsOutlierBound) {
  try {
    validate_tolerance(json{{"uint8", {{"atol", 1}, {"mismatch_fraction", 0.01}, {"reason", "x"}}}});
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/uint8/mismatch_fraction");
    EXPECT_NE(std::string(e.what()).find("outlier_atol"), std::string::npos) << e.what();
  }
  try {
    validate_tolerance(json{{"atol", 1}, {"outlier_atol", 4}, {"reason", "x"}});
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/outlier_atol");
  }
  EXPECT_THROW(validate_tolerance(json{{"atol", 2}, {"mismatch_fraction", 0.1}, {"outlier_atol", 1}, {"reason", "x"}}),
               FieldError);  // below atol
  const auto t = resolve_tolerance(json{{"atol", 1}, {"mismatch_fraction", 0.01}, {"outlier_atol", 4}, {"reason", "r"}},
                                   at::kByte);
  EXPECT_EQ(t.outlier_atol, 4);
  EXPECT_EQ(t.to_json()["outlier_atol"], 4);
  EXPECT_NE(t.describe(at::kByte).find("|diff| <= 4 for up to 1% of elements"), std::string::npos)
      << t.describe(at::kByte);
}

TEST(ToleranceTest, TieEpsilonIsStatedAndBounded) {
  EXPECT_EQ(resolve_tolerance(true, at::kByte).tie_epsilon, kDefaultTieEpsilon);
  EXPECT_EQ(resolve_tolerance(json{{"tie_epsilon", 0.01}, {"reason", "r"}}, at::kByte).tie_epsilon, 0.01);
  EXPECT_THROW(validate_tolerance(json{{"tie_epsilon", 0.5}, {"reason", "x"}}), FieldError);
  EXPECT_THROW(validate_tolerance(json{{"tie_epsilon", -0.1}, {"reason", "x"}}), FieldError);
}

}  // namespace
}  // namespace devparity
