// Note [One accelerator per process]: which trials leave a process, and
// where none can leave, which are held back with the reason.

#include "harness/run/accelerator_split.h"

#include "harness/device/device_kinds.h"
#include "harness/run/worker_protocol.h"
#include "harness/suite/plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace devparity {
namespace {

// A machine with one GPU and the simulated device's two indices.
DeviceInventory gpu_machine() {
  DeviceInventory inv;
  inv.cuda_count = 1;
  inv.cuda_compiled = true;
  inv.vdev_compiled = true;
  inv.vdev_count = 2;
  return inv;
}

// Two groups, one trial per device of `devices`.
Plan plan_on(const std::string& devices, const DeviceInventory& inv = gpu_machine()) {
  Plan plan;
  for (int g = 0; g < 2; ++g) {
    TrialGroup group;
    for (const auto& target : parse_device_list(devices, inv)) {
      group.trials.push_back({"case/s/float32/" + target.name + "/in" + std::to_string(g), target});
    }
    plan.groups.push_back(group);
  }
  return plan;
}

std::vector<std::string> absent_names(const Plan& plan) {
  std::vector<std::string> out;
  for (const auto& t : plan.groups[0].trials) {
    if (!t.target.available()) out.push_back(t.target.name);
  }
  return out;
}

const DeviceKind* vdev_kind() { return device_kind_named("vdev"); }

TEST(AcceleratorSplit, TwoAcceleratorsSendTheInstalledKindToAWorker) {
  auto plan = plan_on("cpu,cuda:0,vdev:1,meta");
  EXPECT_EQ(decide_split(plan, false, true, nullptr), Split::kWorker);
  EXPECT_TRUE(absent_names(plan).empty());
  EXPECT_EQ(leaving_families(plan), std::vector<std::string>{"vdev"});
  const auto items = split_items(plan);
  ASSERT_EQ(items.size(), 2U);  // vdev:1 of each group, in plan order
  EXPECT_EQ(items[0].group, 0U);
  EXPECT_EQ(items[0].trial, 2);
  EXPECT_EQ(items[1].group, 1U);
  // The worker names them by a word, and finds the same ones in its own plan.
  const auto again = worker_items(plan, kSplitSpec);
  ASSERT_EQ(again.size(), items.size());
  EXPECT_EQ(again[1].trial, items[1].trial);
}

TEST(AcceleratorSplit, OneAcceleratorStaysInOneProcess) {
  for (const char* devices : {"cpu,vdev:0,vdev:1,meta", "cpu,cuda:0,meta", "cpu,meta"}) {
    auto plan = plan_on(devices);
    EXPECT_EQ(decide_split(plan, false, true, nullptr), Split::kNone) << devices;
  }
  // A CUDA row absent on this machine asks for no worker either.
  DeviceInventory cpu_only = gpu_machine();
  cpu_only.cuda_count = 0;
  auto plan = plan_on("cpu,cuda:0,vdev:1", cpu_only);
  EXPECT_EQ(decide_split(plan, false, true, nullptr), Split::kNone);
}

TEST(AcceleratorSplit, VdevWorkerSendsVdevRowsToAWorkerWithoutCuda) {
  auto plan = plan_on("cpu,vdev:1");
  EXPECT_EQ(decide_split(plan, true, true, nullptr), Split::kWorker);
  auto without_vdev = plan_on("cpu,meta");
  EXPECT_EQ(decide_split(without_vdev, true, true, nullptr), Split::kNone);  // nothing would leave
}

TEST(AcceleratorSplit, WithoutWorkersTheRowsThisProcessCannotHostAreSkippedWithTheReason) {
  // Nothing installed yet (Python's audit() on a GPU machine): the CUDA rows run, vdev's are held back.
  auto plan = plan_on("cpu,cuda:0,vdev:1");
  EXPECT_EQ(decide_split(plan, false, false, nullptr), Split::kHeldBack);
  EXPECT_EQ(absent_names(plan), std::vector<std::string>{"vdev:1"});
  const auto& held = plan.groups[0].trials[2].target;
  EXPECT_NE(held.absent_reason.find("not run in this process"), std::string::npos) << held.absent_reason;
  EXPECT_NE(held.absent_reason.find("One accelerator per process"), std::string::npos) << held.absent_reason;
  // The simulated device installed here (the pytest plugin's process): the CUDA rows are held back.
  auto installed = plan_on("cpu,cuda:0,vdev:1");
  EXPECT_EQ(decide_split(installed, false, true, vdev_kind()), Split::kHeldBack);
  EXPECT_EQ(absent_names(installed), std::vector<std::string>{"cuda:0"});
  EXPECT_NE(installed.groups[1].trials[1].target.absent_reason.find("without devparity.install()"), std::string::npos);
  // ... also when the plan asks for CUDA alone.
  auto cuda_alone = plan_on("cpu,cuda:0");
  EXPECT_EQ(decide_split(cuda_alone, false, true, vdev_kind()), Split::kHeldBack);
  EXPECT_EQ(absent_names(cuda_alone), std::vector<std::string>{"cuda:0"});
}

TEST(AcceleratorSplit, OnlyPresentTrialsOfAnInstalledAcceleratorLeave) {
  const auto plan = plan_on("cpu,cuda:0,vdev:0,vdev:1,vdev:5,meta");
  std::vector<std::string> leaving;
  for (const auto& t : plan.groups[0].trials) {
    if (leaves_for_worker(t)) leaving.push_back(t.target.name);
  }
  EXPECT_EQ(leaving, (std::vector<std::string>{"vdev:0", "vdev:1"}));  // vdev:5 is absent; cuda needs no install
}

}  // namespace
}  // namespace devparity
