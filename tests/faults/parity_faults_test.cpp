// The parity check must catch each seeded fault, with a message that names
// the trial, and must pass each clean twin. The reference is the reference
// implementation on the CPU, so the faults are caught without a GPU.

#include "tests/support/run_suite.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

using nlohmann::json;
using testing::EventRecorder;

json twin_case(const std::string& subject, const std::string& reference, const json& params) {
  return {{"cases",
           {{{"name", "twin"},
             {"subject", subject},
             {"params", params},
             {"inputs", {{{"pattern", "noise"}, {"shape", {2, 3, 17, 11}}},
                         {{"pattern", "edges"}, {"shape", {1, 3, 16, 16}}}}},
             {"dtypes", {"float32"}},
             {"reference", {{"subject", reference}, {"device", "cpu"}}}}}}};
}

void expect_caught(const EventRecorder& r) {
  ASSERT_FALSE(r.results.empty());
  int failed = 0;
  for (const auto& result : r.results) {
    if (result.device != "cpu") continue;
    const auto& parity = EventRecorder::check(result, "parity");
    EXPECT_EQ(parity.status, Status::kFail) << result.id;
    EXPECT_NE(parity.message.find(result.id), std::string::npos)
        << "the message names the trial: " << parity.message;
    EXPECT_EQ(parity.stats["mismatched"]["pattern"], "clustered") << "a structural error, not noise";
    ++failed;
  }
  EXPECT_EQ(failed, 2);
  EXPECT_EQ(r.summary.exit_code(), 1);
}

void expect_clean(const EventRecorder& r) {
  ASSERT_FALSE(r.results.empty());
  for (const auto& result : r.results) {
    EXPECT_NE(result.status, Status::kFail) << result.id << ": " << result.message;
    if (result.device == "cpu") {
      EXPECT_EQ(EventRecorder::check(result, "parity").status, Status::kPass) << result.message;
    }
  }
  EXPECT_EQ(r.summary.exit_code(), 0);
}

const json kResize = {{"size", {23, 37}}, {"interpolation", "bilinear"}};
const json kBlur = {{"kernel_size", {7, 3}}, {"sigma", {2.0, 0.6}}, {"border", "reflect"}};

TEST(ParityFaultsTest, CatchesTheHalfPixelCentreError) {
  expect_caught(testing::run_suite(twin_case("fault_resize_half_pixel", "resize", kResize)));
}

TEST(ParityFaultsTest, PassesTheHalfPixelCleanTwin) {
  expect_clean(testing::run_suite(twin_case("clean_resize_half_pixel", "resize", kResize)));
}

TEST(ParityFaultsTest, CatchesTheTransposedSigma) {
  expect_caught(testing::run_suite(twin_case("fault_blur_transposed_sigma", "gaussian_blur2d", kBlur)));
}

TEST(ParityFaultsTest, PassesTheTransposedSigmaCleanTwin) {
  const auto r = testing::run_suite(twin_case("clean_blur_transposed_sigma", "gaussian_blur2d", kBlur));
  expect_clean(r);
  // conv2d has no meta kernel in LibTorch 1.13: reported as unsupported, not failed.
  for (const auto& result : r.results) {
    if (result.device == "meta") {
      EXPECT_EQ(result.status, Status::kSkip) << result.message;
      EXPECT_NE(result.message.find("unsupported on meta"), std::string::npos) << result.message;
    }
  }
}

// uint8 through float32 against the reference's fixed point, at the default
// (exact) tolerance: an exact 4x upscale, where ties are common, and an odd one.
json uint8_twin_case(const std::string& subject, const json& parity = true) {
  const json params = {{"size", {48, 64}}, {"interpolation", "bilinear"}, {"uint8_strategy", "fixed_point"}};
  return {{"cases",
           {{{"name", "twin"},
             {"subject", subject},
             {"params", params},
             {"inputs", {{{"pattern", "noise"}, {"shape", {2, 3, 12, 16}}},
                         {{"pattern", "edges"}, {"shape", {1, 3, 17, 11}}}}},
             {"dtypes", {"uint8"}},
             {"reference", {{"subject", "resize"}, {"device", "cpu"}}},
             {"checks", {{"parity", parity}}}}}}};
}

// Truncating instead of rounding: every difference is +-1, none at a tie.
TEST(ParityFaultsTest, CatchesPlusMinusOneAwayFromTies) {
  const auto r = testing::run_suite(uint8_twin_case("fault_resize_uint8_truncates"));
  int failed = 0;
  for (const auto& result : r.results) {
    if (result.device != "cpu") continue;
    const auto& parity = EventRecorder::check(result, "parity");
    EXPECT_EQ(parity.status, Status::kFail) << result.id;
    EXPECT_EQ(parity.stats["abs_diff_histogram"].back()["high"], 1) << "every difference is +-1";
    EXPECT_GT(parity.stats["off_by_one_elsewhere"].get<int64_t>(), parity.stats["rounding_ties"].get<int64_t>());
    EXPECT_NE(parity.message.find("+-1 differences at rounding ties of the reference (half up"), std::string::npos)
        << parity.message;
    ++failed;
  }
  EXPECT_EQ(failed, 2);
  EXPECT_EQ(r.summary.exit_code(), 1);
  // What tie-blind parity would have said: an atol of 1 passes the fault.
  const json loose = {{"uint8", {{"atol", 1}, {"reason", "blind to ties"}}}};
  expect_clean(testing::run_suite(uint8_twin_case("fault_resize_uint8_truncates", loose)));
}

// Rounding half to even in float32: the only differences from fixed point's
// half up are at ties, which are counted and excused.
TEST(ParityFaultsTest, PassesPlusMinusOneAtTiesCleanTwin) {
  const auto r = testing::run_suite(uint8_twin_case("clean_resize_uint8_truncates"));
  expect_clean(r);
  int64_t ties = 0;
  for (const auto& result : r.results) {
    if (result.device != "cpu") continue;
    const auto& parity = EventRecorder::check(result, "parity");
    EXPECT_EQ(parity.stats["off_by_one_elsewhere"], 0) << parity.message;
    EXPECT_EQ(parity.stats["mismatches"], 0) << parity.message;
    ties += parity.stats["rounding_ties"].get<int64_t>();
  }
  EXPECT_GT(ties, 0) << "the 4x upscale has ties: the twin must exercise them";
}

}  // namespace
}  // namespace devparity
