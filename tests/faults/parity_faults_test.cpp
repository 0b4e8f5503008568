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


// NaN where the reference has numbers: the evidence leads with the NaN and
// its numbers say NaN, never "max |diff| 0, PSNR Infinity".
json non_finite_case(const std::string& subject) {
  return {{"cases",
           {{{"name", "twin"},
             {"subject", subject},
             {"inputs", {{{"pattern", "noise"}, {"shape", {1, 3, 9, 7}}},
                         {{"pattern", "constant"}, {"value", 0.5}, {"shape", {1, 3, 9, 7}}}}},
             {"dtypes", {"float32"}}}}}};
}

std::vector<json> findings_of_kind(const CheckOutcome& check, const std::string& kind) {
  std::vector<json> out;
  for (const auto& f : check.findings) {
    if (f["kind"] == kind) out.push_back(f);
  }
  return out;
}

TEST(ParityFaultsTest, CatchesNanOffTheCpuAndSaysNan) {
  const auto r = testing::run_suite(non_finite_case("fault_nan_off_cpu"), "cpu,vdev:1");
  int failed = 0;
  for (const auto& result : r.results) {
    const bool flat = result.input.rfind("constant", 0) == 0;
    if (result.device != "vdev:1" || !flat) {
      EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
      EXPECT_TRUE(findings_of_kind(EventRecorder::check(result, "run"), "non_finite_output").empty()) << result.id;
      continue;
    }
    ++failed;
    const auto& parity = EventRecorder::check(result, "parity");
    EXPECT_EQ(parity.status, Status::kFail) << result.id;
    EXPECT_EQ(parity.message.find(result.id + ": 189 NaN and 0 Inf where the other holds a number"), 0u)
        << parity.message;
    EXPECT_NE(parity.message.find("max |diff| NaN; first NaN/Inf mismatch at [0,0,0,0]: NaN vs reference 0"),
              std::string::npos) << parity.message;
    EXPECT_EQ(parity.stats["max_abs"], "NaN");
    EXPECT_EQ(parity.stats["psnr_db"], "NaN");
    EXPECT_EQ(parity.stats["nan_mismatches"], 189);
    const auto& run = EventRecorder::check(result, "run");
    EXPECT_EQ(run.stats["output_non_finite"], 189);
    const auto warnings = findings_of_kind(run, "non_finite_output");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0]["severity"], "warning");
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(r.summary.exit_code(), 1);
}

TEST(ParityFaultsTest, PassesTheNanOffCpuCleanTwin) {
  const auto r = testing::run_suite(non_finite_case("clean_nan_off_cpu"), "cpu,vdev:1");
  EXPECT_EQ(r.summary.exit_code(), 0);
  for (const auto& result : r.results) {
    EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
    EXPECT_TRUE(findings_of_kind(EventRecorder::check(result, "run"), "non_finite_output").empty()) << result.id;
  }
}

// Every device agrees on NaN everywhere: parity passes, and every row's run
// check warns, the reference row's too.
TEST(ParityFaultsTest, WarnsOfAnOutputThatIsNanOnEveryDevice) {
  const auto r = testing::run_suite(non_finite_case("fault_nan_everywhere"), "cpu,vdev:1");
  EXPECT_EQ(r.summary.exit_code(), 0);
  int warned = 0;
  for (const auto& result : r.results) {
    if (result.device == "vdev:1") {
      const auto& parity = EventRecorder::check(result, "parity");
      EXPECT_EQ(parity.status, Status::kPass) << result.id << ": " << parity.message;
    }
    const auto& run = EventRecorder::check(result, "run");
    EXPECT_EQ(run.status, Status::kPass);
    const auto warnings = findings_of_kind(run, "non_finite_output");
    if (result.input.rfind("constant", 0) != 0) {
      EXPECT_TRUE(warnings.empty()) << result.id;
      continue;
    }
    ++warned;
    ASSERT_EQ(warnings.size(), 1u) << result.id;
    EXPECT_EQ(warnings[0]["severity"], "warning");
    EXPECT_EQ(warnings[0]["device"], result.device);
    EXPECT_NE(warnings[0]["message"].get<std::string>().find("189 NaN or Inf element(s) of 189; the first, at "
                                                             "[0,0,0,0], is NaN"),
              std::string::npos) << warnings[0];
    EXPECT_NE(run.message.find("warning: the output holds 189 NaN"), std::string::npos) << run.message;
  }
  EXPECT_EQ(warned, 2);
  const auto clean = testing::run_suite(non_finite_case("clean_nan_everywhere"), "cpu,vdev:1");
  EXPECT_EQ(clean.summary.exit_code(), 0);
  for (const auto& result : clean.results) {
    EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
    EXPECT_TRUE(findings_of_kind(EventRecorder::check(result, "run"), "non_finite_output").empty()) << result.id;
  }
}

}  // namespace
}  // namespace devparity
