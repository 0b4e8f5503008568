#include "harness/model/failure_groups.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

using nlohmann::json;

// A failing trial of case `c` on `device` with `input`, its placement check
// holding one error finding at `source`.
TrialResult with_finding(const std::string& device, const std::string& input, const std::string& source,
                         const std::string& c = "m") {
  TrialResult r;
  r.case_name = c;
  r.subject = "module";
  r.device = device;
  r.id = c + "/module/float32/" + device + "/" + input;
  CheckOutcome placement = CheckOutcome::verdict("placement", Status::kFail, r.id + ": 1 error(s)");
  placement.findings.push_back({{"kind", "state_off_device"}, {"severity", "error"}, {"op", ""},
                                {"message", "tensor attribute 'gain' stays on cpu, not " + device},
                                {"source", source}, {"device", device}, {"count", 1}});
  placement.findings.push_back({{"kind", "host_sync"}, {"severity", "warning"}, {"op", "aten::item"},
                                {"message", "a warning first would not be the cause"}, {"device", device}});
  std::swap(placement.findings[0], placement.findings[1]);
  r.checks.push_back(placement);
  r.finalize();
  return r;
}

TEST(FailureGroupsTest, OneCauseOnFourDevicesAndTwoInputsIsOneProblem) {
  FailureGroups groups;
  int fresh = 0;
  for (const char* input : {"noise-2x3x17x11", "edges-1x3x16x16"}) {
    for (const char* device : {"meta", "vdev:0", "vdev:1", "cpu"}) {
      fresh += groups.add(with_finding(device, input, "m.py:56")).second ? 1 : 0;
    }
  }
  EXPECT_EQ(fresh, 1);
  ASSERT_EQ(groups.groups().size(), 1u);
  const auto& g = groups.groups()[0];
  EXPECT_EQ(g.ids.size(), 8u);
  EXPECT_EQ(g.devices, (std::vector<std::string>{"meta", "vdev:0", "vdev:1", "cpu"}));
  EXPECT_EQ(g.status, Status::kFail);
  EXPECT_EQ(groups.headline(), "1 problem in 8 trials");
  EXPECT_EQ(g.where(), "8 trials on meta, vdev:0, vdev:1, cpu");
  // The error finding, not the warning before it; the device named generically, in words.
  EXPECT_EQ(g.summary, "state_off_device: tensor attribute 'gain' stays on cpu, not the device (made at m.py:56)");
}

// Issue 56: a headline read "threw on <device>"; a group of one device names it.
TEST(FailureGroupsTest, AHeadlineNamesItsDeviceNeverAPlaceholder) {
  FailureGroups groups;
  groups.add(with_finding("vdev:1", "a", "m.py:56"));
  EXPECT_EQ(groups.groups()[0].summary,
            "state_off_device: tensor attribute 'gain' stays on cpu, not vdev:1 (made at m.py:56)");
  groups.add(with_finding("vdev:0", "b", "m.py:56"));
  EXPECT_EQ(groups.groups()[0].summary.find("<device>"), std::string::npos) << groups.groups()[0].summary;
}

TEST(FailureGroupsTest, AnotherSourceLineIsAnotherProblem) {
  FailureGroups groups;
  groups.add(with_finding("vdev:1", "a", "m.py:56"));
  groups.add(with_finding("vdev:1", "b", "m.py:57"));
  groups.add(with_finding("vdev:1", "c", "m.py:56"));
  ASSERT_EQ(groups.groups().size(), 2u);
  EXPECT_EQ(groups.groups()[0].ids.size(), 2u);
  EXPECT_EQ(groups.headline(), "2 problems in 3 trials");
}

TEST(FailureGroupsTest, WithoutFindingsByCheckSubjectAndDeviceClass) {
  auto parity = [](const std::string& device, const std::string& subject) {
    TrialResult r;
    r.case_name = "c";
    r.subject = subject;
    r.device = device;
    r.id = "c/" + subject + "/uint8/" + device + "/noise";
    r.checks.push_back(CheckOutcome::verdict("parity", Status::kFail, r.id + ": 3 of 9 elements outside"));
    r.checks.push_back(CheckOutcome::verdict("placement", Status::kPass, "clean"));
    r.finalize();
    return r;
  };
  FailureGroups groups;
  groups.add(parity("cuda:0", "resize"));
  groups.add(parity("cuda:1", "resize"));  // same class
  groups.add(parity("vdev:1", "resize"));  // another class
  groups.add(parity("cuda:0", "rotate"));  // another subject
  TrialResult passing;
  passing.checks.push_back(CheckOutcome::verdict("parity", Status::kPass, "identical"));
  passing.finalize();
  EXPECT_EQ(groups.add(passing).first, std::string::npos);
  ASSERT_EQ(groups.groups().size(), 3u);
  EXPECT_EQ(groups.groups()[0].devices, (std::vector<std::string>{"cuda:0", "cuda:1"}));
  EXPECT_EQ(groups.groups()[0].summary, "parity: 3 of 9 elements outside") << "the trial's id left out";
  EXPECT_EQ(groups.trials(), 4u);
}

TEST(FailureGroupsTest, FromResults) {
  std::vector<TrialResult> results;
  for (const char* device : {"cpu", "meta"}) results.push_back(with_finding(device, "x", "m.py:9"));
  const auto groups = group_failures(results);
  ASSERT_EQ(groups.groups().size(), 1u);
  EXPECT_EQ(groups.groups()[0].ids.size(), 2u);
  EXPECT_EQ(group_failures({}).groups().size(), 0u);
}

}  // namespace
}  // namespace devparity
