#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/checks/registry.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

using nlohmann::json;

class ParityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    parity_ = CheckRegistry::global().find("parity");
    ASSERT_NE(parity_, nullptr);
    result_.id = "case/subject/float32/cpu/noise-1x1x4x4";
  }

  CheckOutcome check(const at::Tensor& ref, const at::Tensor& out, const std::string& device,
                     const json& setting = true, c10::optional<c10::Device> output_device = {}) {
    target_ = resolve_device(device, DeviceInventory{});
    const auto dev = output_device ? *output_device : out.device();
    Execution run;
    run.ran = out.defined();
    run.output = out;
    run.output_device = dev;
    CheckContext ctx(result_, target_, run, setting);
    ctx.dtype = ref.scalar_type();
    ctx.reference = ref;
    return parity_->run(ctx);
  }

  const Check* parity_ = nullptr;
  TrialResult result_;
  DeviceTarget target_;
};

TEST_F(ParityTest, IdenticalPasses) {
  const auto x = at::rand({1, 1, 4, 4});
  const auto c = check(x, x.clone(), "cpu");
  EXPECT_EQ(c.status, Status::kPass);
  EXPECT_EQ(c.message, "identical to the reference");
  EXPECT_NE(c.describe.find("assert_close"), std::string::npos);
  EXPECT_EQ(c.stats["tolerance"]["default"], true);
}

TEST_F(ParityTest, DifferenceBeyondToleranceFailsNamingTrialAndWorstElement) {
  const auto x = at::zeros({1, 1, 4, 4});
  auto y = x.clone();
  y[0][0][2][1] = 0.5f;
  const auto c = check(x, y, "cpu");
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_NE(c.message.find(result_.id), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("1 of 16 elements"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("[0,0,2,1]"), std::string::npos) << c.message;
  EXPECT_EQ(c.stats["mismatches"], 1);
  EXPECT_EQ(c.stats["mismatched"]["pattern"], "isolated");
}

TEST_F(ParityTest, SmallDifferenceWithinDefaultFloatTolerancePasses) {
  const auto x = at::full({1, 1, 4, 4}, 0.5f);
  const auto c = check(x, x + 1e-6f, "cpu");
  EXPECT_EQ(c.status, Status::kPass);
  EXPECT_NE(c.message.find("within tolerance"), std::string::npos) << c.message;
}

TEST_F(ParityTest, Uint8DefaultIsExactOverrideAllowsOne) {
  const auto x = at::full({1, 1, 4, 4}, 10, at::kByte);
  const auto y = x + 1;
  EXPECT_EQ(check(x, y, "cpu").status, Status::kFail);
  const auto c = check(x, y, "cpu", json{{"uint8", {{"atol", 1}, {"reason", "rounding"}}}});
  EXPECT_EQ(c.status, Status::kPass);
  EXPECT_NE(c.describe.find("override: rounding"), std::string::npos) << c.describe;
  EXPECT_EQ(c.stats["tolerance"]["reason"], "rounding");
}

TEST_F(ParityTest, AllowedMismatchFraction) {
  const auto x = at::zeros({1, 1, 4, 4});
  auto y = x.clone();
  y[0][0][0][0] = 1.0f;
  y[0][0][3][3] = 1.0f;  // 2 of 16 = 12.5%
  EXPECT_EQ(check(x, y, "cpu", json{{"mismatch_fraction", 0.125}, {"outlier_atol", 1}, {"reason", "r"}}).status,
            Status::kPass);
  EXPECT_EQ(check(x, y, "cpu", json{{"mismatch_fraction", 0.1}, {"outlier_atol", 1}, {"reason", "r"}}).status,
            Status::kFail);
  // Within the fraction but beyond the stated bound: fails, and says so.
  const auto beyond = check(x, y, "cpu", json{{"mismatch_fraction", 0.125}, {"outlier_atol", 0.5}, {"reason", "r"}});
  EXPECT_EQ(beyond.status, Status::kFail);
  EXPECT_EQ(beyond.stats["beyond_outlier_bound"], 2);
  EXPECT_NE(beyond.message.find("2 beyond the outlier bound 0.5"), std::string::npos) << beyond.message;
}

TEST_F(ParityTest, ShapeDtypeAndDeviceAreCompared) {
  const auto x = at::zeros({1, 1, 4, 4});
  EXPECT_NE(check(x, at::zeros({1, 1, 4, 5}), "cpu").message.find("shape 1x1x4x5 differs"),
            std::string::npos);
  EXPECT_NE(check(x, at::zeros({1, 1, 4, 4}, at::kDouble), "cpu").message.find("dtype float64"),
            std::string::npos);
  const auto wrong = check(x, x.clone(), "cpu", true, c10::Device(c10::DeviceType::Meta));
  EXPECT_EQ(wrong.status, Status::kFail);
  EXPECT_NE(wrong.message.find("output is on meta, expected cpu"), std::string::npos) << wrong.message;
}

TEST_F(ParityTest, MetaComparesShapeAndDtypeOnly) {
  const auto ref = at::rand({1, 3, 4, 4});
  const auto meta = at::empty({1, 3, 4, 4}, at::TensorOptions().device(at::kMeta));
  const auto ok = check(ref, meta, "meta");
  EXPECT_EQ(ok.status, Status::kPass);
  EXPECT_NE(ok.message.find("values not compared on meta"), std::string::npos);
  const auto bad = check(ref, at::empty({1, 3, 4, 2}, at::TensorOptions().device(at::kMeta)), "meta");
  EXPECT_EQ(bad.status, Status::kFail);
  const auto cpu_out = check(ref, ref.clone(), "meta");  // output left on the CPU
  EXPECT_EQ(cpu_out.status, Status::kFail);
  EXPECT_NE(cpu_out.message.find("output is on cpu, expected meta"), std::string::npos);
}

TEST_F(ParityTest, SettingsAreValidated) {
  EXPECT_NO_THROW(parity_->validate_setting(true));
  EXPECT_THROW(parity_->validate_setting(json{{"atol", 1}}), FieldError);  // no reason
}

}  // namespace
}  // namespace devparity
