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

}  // namespace
}  // namespace devparity
