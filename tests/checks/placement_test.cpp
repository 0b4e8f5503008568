#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/checks/registry.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

using nlohmann::json;

class PlacementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    check_ = CheckRegistry::global().find("placement");
    ASSERT_NE(check_, nullptr);
    result_.id = "c/s/float32/meta/noise-1x3x17x11";
    target_ = resolve_device("meta", DeviceInventory{});
    output_ = at::empty({1}, at::TensorOptions().device(at::kMeta));
  }

  CheckOutcome run(const std::vector<Finding>* findings, const json& setting = true,
                   bool completed = true, bool strict_run = false) {
    const at::Tensor none;
    Execution run;
    run.ran = completed;
    run.output = completed ? output_ : none;
    run.output_device = c10::Device(c10::DeviceType::Meta);
    run.traced = findings != nullptr;
    if (findings != nullptr) run.findings = *findings;
    run.ops_traced = 7;
    CheckContext ctx(result_, target_, run, setting);
    ctx.strict = strict_run;
    return check_->run(ctx);
  }

  static Finding finding(const char* kind, Severity severity) {
    Finding f;
    f.kind = kind;
    f.severity = severity;
    f.op = "aten::op";
    f.message = "aten::op did something";
    return f;
  }

  const Check* check_ = nullptr;
  TrialResult result_;
  DeviceTarget target_;
  at::Tensor output_;
};

TEST_F(PlacementTest, NoFindingsPass) {
  const std::vector<Finding> none;
  const auto c = run(&none);
  EXPECT_EQ(c.status, Status::kPass);
  EXPECT_EQ(c.message, "no findings in 7 traced op(s)");
  EXPECT_EQ(c.stats["ops_traced"], 7);
  EXPECT_FALSE(check_->compares_outputs());
}

TEST_F(PlacementTest, DeviceDependentCodeIsAWarningUnlessTheCaseMakesItAnError) {
  const std::vector<Finding> f = {finding("device_dependent_code", Severity::kWarning)};
  EXPECT_EQ(run(&f).status, Status::kPass);
  const json error = {{"severity", {{"device_dependent_code", "error"}}}};
  EXPECT_NO_THROW(check_->validate_setting(error));
  const auto c = run(&f, error);
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_EQ(c.findings[0]["severity"], "error");
  // Any kind may be re-graded; unknown kinds and levels are input errors.
  const json quiet = {{"mode", "strict"}, {"severity", {{"device_dependent_code", "note"}}}};
  EXPECT_EQ(run(&f, quiet).status, Status::kPass);
  EXPECT_THROW(check_->validate_setting(json{{"severity", {{"no_such_kind", "error"}}}}), FieldError);
  EXPECT_THROW(check_->validate_setting(json{{"severity", {{"host_sync", "fatal"}}}}), FieldError);
}

TEST_F(PlacementTest, ErrorsFailAndNameTheTrialAndTheFirstFinding) {
  const std::vector<Finding> f = {finding("host_sync", Severity::kWarning),
                                  finding("implicit_device_factory", Severity::kError)};
  const auto c = run(&f);
  EXPECT_EQ(c.status, Status::kFail);
  EXPECT_NE(c.message.find(result_.id), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("[implicit_device_factory]"), std::string::npos) << c.message;
  EXPECT_EQ(c.stats["errors"], 1);
  EXPECT_EQ(c.stats["warnings"], 1);
  EXPECT_EQ(c.findings.size(), 2u);
}

TEST_F(PlacementTest, WarningsFailOnlyInStrictMode) {
  const std::vector<Finding> f = {finding("host_sync", Severity::kWarning)};
  EXPECT_EQ(run(&f).status, Status::kPass);
  EXPECT_NE(run(&f).message.find("first warning: [host_sync]"), std::string::npos);
  EXPECT_EQ(run(&f, json{{"mode", "strict"}}).status, Status::kFail);
  EXPECT_EQ(run(&f, json{{"mode", "warn"}}).status, Status::kPass);
}

// `--placement strict` makes every case strict and keeps what the case
// re-grades: a warning the case makes a note still passes.
TEST_F(PlacementTest, AStrictRunKeepsTheCasesSeverities) {
  const std::vector<Finding> f = {finding("host_sync", Severity::kWarning)};
  EXPECT_EQ(run(&f, true, true, /*strict_run=*/true).status, Status::kFail);
  EXPECT_EQ(run(&f, json{{"mode", "warn"}}, true, /*strict_run=*/true).status, Status::kFail);
  const auto regraded = run(&f, json{{"severity", {{"host_sync", "note"}}}}, true, /*strict_run=*/true);
  EXPECT_EQ(regraded.status, Status::kPass) << regraded.message;
  EXPECT_EQ(regraded.stats["mode"], "strict");
}

TEST_F(PlacementTest, IncompleteRunsSkipUnlessAnErrorWasAlreadySeen) {
  const std::vector<Finding> none;
  const auto skipped = run(&none, true, /*completed=*/false);
  EXPECT_EQ(skipped.status, Status::kSkip);
  EXPECT_NE(skipped.message.find("did not complete"), std::string::npos);
  const std::vector<Finding> bad = {finding("foreign_device_input", Severity::kError)};
  EXPECT_EQ(run(&bad, true, false).status, Status::kFail);
}

TEST_F(PlacementTest, OffWhenNotTraced) {
  const auto c = run(nullptr);
  EXPECT_EQ(c.status, Status::kSkip);
  EXPECT_NE(c.message.find("--placement off"), std::string::npos);
}

TEST_F(PlacementTest, SettingsAreValidated) {
  EXPECT_NO_THROW(check_->validate_setting(true));
  EXPECT_NO_THROW(check_->validate_setting(json{{"mode", "strict"}}));
  EXPECT_THROW(check_->validate_setting(json{{"mode", "paranoid"}}), FieldError);
  EXPECT_THROW(check_->validate_setting(json{{"level", "strict"}}), FieldError);
}

}  // namespace
}  // namespace devparity
