// The case's checks on one trial (harness/run/check_dispatch.h): each
// registered check's verdict in name order, a skip saying why a check cannot
// judge, an error for a check nobody registered, the reference row left alone.
#include "harness/run/check_dispatch.h"

#include "harness/checks/registry.h"
#include "tests/support/planned.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

using nlohmann::json;

json suite_with(const std::vector<std::string>& names, json extra = json::object()) {
  json checks = json::object();
  for (const auto& n : names) checks[n] = true;  // the others stay on too: every check is unless false
  json c = {{"name", "d"},
            {"subject", "hflip"},
            {"inputs", {{{"pattern", "noise"}, {"shape", {1, 3, 6, 5}}}}},
            {"dtypes", {"float32"}},
            {"checks", checks}};
  c.update(extra);
  return {{"cases", {c}}};
}

const CheckOutcome* outcome(const TrialResult& row, const std::string& name) {
  for (const auto& c : row.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TrialResult dispatch_row(testing::Planned& p, size_t trial, const CheckDispatch& dispatch) {
  const auto& g = p.plan.groups.at(0);
  GroupRun group(g, /*trace=*/true);
  Execution scratch;
  const auto& mine = group.run(g.trials.at(trial), scratch);
  auto row = group.result_for(g.trials.at(trial));
  const bool on_reference_device = g.trials.at(trial).target.name == g.reference_device.name;
  dispatch.run(group, g.trials.at(trial), mine, on_reference_device, row);
  return row;
}

TEST(CheckDispatchTest, EachCheckJudgesInNameOrderAndTheReferenceRowIsNotCompared) {
  auto p = testing::plan_suite(suite_with({"placement", "parity"}), "cpu,vdev:1");
  const CheckDispatch dispatch{CheckRegistry::global()};
  const auto on_vdev = dispatch_row(p, 1, dispatch);
  const auto& spec = *p.plan.groups.at(0).spec;
  ASSERT_EQ(on_vdev.checks.size(), spec.checks.size());
  size_t i = 0;
  for (const auto& [name, setting] : spec.checks) EXPECT_EQ(on_vdev.checks[i++].name, name);
  ASSERT_NE(outcome(on_vdev, "parity"), nullptr);
  EXPECT_EQ(outcome(on_vdev, "parity")->status, Status::kPass) << outcome(on_vdev, "parity")->message;
  const auto on_cpu = dispatch_row(p, 0, dispatch);
  EXPECT_EQ(outcome(on_cpu, "parity"), nullptr);  // the reference against itself: nothing to say
  EXPECT_NE(outcome(on_cpu, "placement"), nullptr);
}

TEST(CheckDispatchTest, AnUnknownCheckIsAnErrorNamingIt) {
  auto p = testing::plan_suite(suite_with({"parity"}), "cpu,meta");
  CheckRegistry empty;  // knows no check at all
  const auto row = dispatch_row(p, 1, CheckDispatch{empty});
  ASSERT_FALSE(row.checks.empty());
  for (const auto& c : row.checks) {
    EXPECT_EQ(c.status, Status::kError) << c.name;
    EXPECT_EQ(c.message, "no check called '" + c.name + "' is registered");
  }
}

TEST(CheckDispatchTest, AnAbsentReferenceDeviceSkipsTheComparisonSayingWhy) {
  auto p = testing::plan_suite(suite_with({"parity"}, {{"reference", {{"device", "cuda:0"}}}}), "cpu,meta");
  if (p.plan.groups.at(0).reference_device.available()) GTEST_SKIP() << "cuda:0 is present on this machine";
  const auto row = dispatch_row(p, 0, CheckDispatch{CheckRegistry::global()});
  const auto* parity = outcome(row, "parity");
  ASSERT_NE(parity, nullptr);
  EXPECT_EQ(parity->status, Status::kSkip);
  EXPECT_NE(parity->message.find("reference device cuda:0 is absent"), std::string::npos) << parity->message;
}

TEST(CheckDispatchTest, StrictPlacementOverridesTheCasesSetting) {
  auto p = testing::plan_suite(suite_with({"placement"}), "cpu,vdev:1");
  const CheckDispatch strict{CheckRegistry::global(), Placement::kStrict};
  const auto row = dispatch_row(p, 1, strict);
  const auto* placement = outcome(row, "placement");
  ASSERT_NE(placement, nullptr);
  EXPECT_EQ(placement->status, Status::kPass) << placement->message;
  EXPECT_EQ(placement->stats.value("mode", std::string()), "strict") << placement->stats.dump();
}

}  // namespace
}  // namespace devparity
