// What other arithmetic did to a trial (harness/run/perturbation_verdict.h):
// the models and switches that moved values are recorded, and a failed
// value check's message names them; other checks' messages are left alone.
#include "harness/run/perturbation_verdict.h"

#include "harness/checks/registry.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "tests/support/planned.h"
#include "tests/support/vdev_mode.h"

#include <gtest/gtest.h>

#include <memory>

namespace devparity {
namespace {

TrialResult failing_row() {
  TrialResult row;
  row.checks = {CheckOutcome::verdict("parity", Status::kFail, "3 of 9 elements outside"),
                CheckOutcome::verdict("placement", Status::kFail, "a CPU tensor met vdev:1")};
  return row;
}

TEST(PerturbationVerdictTest, CudasArithmeticIsRecordedAndNamedOnFailedValueChecksOnly) {
  Execution mine;
  mine.cuda_moved = {{"cuda_sort", 2}};
  auto row = failing_row();
  judge_cuda_arithmetic(mine, row);
  EXPECT_EQ(row.cuda_arithmetic, (nlohmann::json{{"cuda_sort", 2}}));
  EXPECT_EQ(row.checks[0].message, "3 of 9 elements outside [CUDA's arithmetic on vdev moved values: cuda_sort in 2 "
                                   "op calls]");
  EXPECT_EQ(row.checks[1].message, "a CPU tensor met vdev:1");  // placement is not about values
  // Passing: recorded, no message touched.
  TrialResult passing;
  passing.checks = {CheckOutcome::verdict("parity", Status::kPass, "ok")};
  judge_cuda_arithmetic(mine, passing);
  EXPECT_EQ(passing.cuda_arithmetic, (nlohmann::json{{"cuda_sort", 2}}));
  EXPECT_EQ(passing.checks[0].message, "ok");
  // Nothing moved: nothing recorded.
  auto untouched = failing_row();
  judge_cuda_arithmetic(Execution{}, untouched);
  EXPECT_TRUE(untouched.cuda_arithmetic.is_null());
}

class PerturbationVerdictGroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    planned_ = testing::plan_suite({{"cases",
                                     {{{"name", "v"},
                                       {"subject", "hflip"},
                                       {"inputs", {{{"pattern", "noise"}, {"shape", {1, 3, 4, 4}}}}},
                                       {"dtypes", {"float32"}}}}}},
                                   "cpu,vdev:1");
    group_ = std::make_unique<GroupRun>(planned_.plan.groups.at(0), false);
  }

  const Trial& vdev_trial() const { return planned_.plan.groups.at(0).trials.at(1); }
  testing::Planned planned_;
  std::unique_ptr<GroupRun> group_;
  const CheckDispatch dispatch_{CheckRegistry::global()};
};

TEST_F(PerturbationVerdictGroupTest, ASingleMovingSwitchIsBlamedForAFailedValueCheck) {
  // The trial cannot fail without a switch: no re-run needed.
  const vdev::ModeScope cpu_arithmetic(testing::mode_with_cuda_arithmetic(false));
  Execution mine;
  mine.perturbation = {"tie_order", "tf32"};
  mine.perturbed = {{"tie_order", 1}, {"tf32", 0}};
  auto row = failing_row();
  judge_perturbation(*group_, vdev_trial(), mine, false, dispatch_, row);
  EXPECT_EQ(row.perturbed["switches"], (nlohmann::json{"tie_order", "tf32"}));
  EXPECT_EQ(row.perturbed["moved"], (nlohmann::json{{"tie_order", 1}}));
  EXPECT_EQ(row.perturbed["blamed"], (nlohmann::json{"tie_order"}));
  EXPECT_EQ(row.checks[0].message, "3 of 9 elements outside [vdev's perturbed numerics moved values: tie_order in 1 "
                                   "op call; it fails under tie_order alone]");
  EXPECT_EQ(row.checks[1].message, "a CPU tensor met vdev:1");
}

TEST_F(PerturbationVerdictGroupTest, UnderCudasArithmeticASwitchIsBlamedWhenTheTrialPassesWithoutIt) {
  // CUDA's arithmetic on: the trial runs again with no switch first (hflip passes then), so the
  // one switch that moved values is to blame; the trials that fail anyway are PerturbFaultsTest's.
  Execution mine;
  mine.perturbation = {"tie_order"};
  mine.perturbed = {{"tie_order", 3}};
  auto row = failing_row();
  judge_perturbation(*group_, vdev_trial(), mine, false, dispatch_, row);
  EXPECT_EQ(row.perturbed["blamed"], (nlohmann::json{"tie_order"}));
  // With no switch moving values there is nothing to blame and no message.
  Execution still;
  still.perturbation = {"tie_order"};
  still.perturbed = {{"tie_order", 0}};
  auto quiet = failing_row();
  judge_perturbation(*group_, vdev_trial(), still, false, dispatch_, quiet);
  EXPECT_EQ(quiet.perturbed["moved"], nlohmann::json::object());
  EXPECT_FALSE(quiet.perturbed.contains("blamed"));
  EXPECT_EQ(quiet.checks[0].message, "3 of 9 elements outside");
}

}  // namespace
}  // namespace devparity
