// vdev's own perturbation switches (harness/vdev/perturb_switches.cpp), each
// on the op it moves: what it computes instead of the CPU's kernel, what it
// leaves alone, and the count of calls it moved.
#include "harness/vdev/perturb.h"

#include "harness/builtins.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/tf32.h"
#include "harness/vdev/vdev.h"
#include "tests/support/vdev_mode.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

namespace perturb = vdev::perturb;

class PerturbSwitchesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
    mode_.emplace(testing::mode_with_cuda_arithmetic(false));  // the switches alone, against the CPU's kernels
  }
  void TearDown() override { mode_.reset(); }
  std::optional<vdev::ModeScope> mode_;
  const c10::Device v1_ = vdev::device(1);
};

TEST_F(PerturbSwitchesTest, RoundHalfAwayRoundsHalvesAwayFromZero) {
  const auto x = at::tensor({0.5, 1.5, 2.5, -0.5, -2.5, 0.25});
  const perturb::Scope on({"round_half_away"});
  EXPECT_TRUE(at::equal(at::round(x.to(v1_)).cpu(), at::tensor({1.0, 2.0, 3.0, -1.0, -3.0, 0.0})));
  EXPECT_EQ(on.moved().at("round_half_away"), 1);
  // Integers have no halves: left to the CPU's kernel, nothing moved.
  (void)at::round(at::tensor({1, 2}).to(v1_)).cpu();
  EXPECT_EQ(on.moved().at("round_half_away"), 1);
}

TEST_F(PerturbSwitchesTest, Tf32RoundsMatmulInputsToTenMantissaBits) {
  const auto a = at::rand({4, 8}) + 1.0, b = at::rand({8, 3}) + 1.0;
  const perturb::Scope on({"tf32"});
  EXPECT_TRUE(at::equal(at::mm(a.to(v1_), b.to(v1_)).cpu(), at::mm(vdev::tf32::round(a), vdev::tf32::round(b))));
  EXPECT_FALSE(at::equal(at::mm(a.to(v1_), b.to(v1_)).cpu(), at::mm(a, b)));
}

TEST_F(PerturbSwitchesTest, ReductionOrderSumsTheOtherWayRound) {
  const auto x = at::tensor({1e8f, 1.0f, -1e8f, 1.0f, 0.5f});
  const perturb::Scope on({"reduction_order"});
  EXPECT_TRUE(at::equal(at::sum(x.to(v1_)).cpu(), at::sum(x.flip({0}))));
  const auto ints = at::tensor({1, 2, 3});
  EXPECT_EQ(at::sum(ints.to(v1_)).cpu().item<int64_t>(), 6);
}

TEST_F(PerturbSwitchesTest, TieOrderGivesEqualValuesTheOtherOrderUnlessStable) {
  const auto x = at::tensor({2.0f, 1.0f, 2.0f, 1.0f});
  const perturb::Scope on({"tie_order"});
  const auto [values, indices] = at::sort(x.to(v1_), /*stable=*/false, -1, /*descending=*/true);
  EXPECT_TRUE(at::equal(values.cpu(), at::tensor({2.0f, 2.0f, 1.0f, 1.0f})));
  EXPECT_TRUE(at::equal(indices.cpu(), at::tensor({2, 0, 3, 1}, at::kLong)));
  // stable=True promises its order: kept.
  const auto stable = std::get<1>(at::sort(x.to(v1_), /*stable=*/true, -1, true)).cpu();
  EXPECT_TRUE(at::equal(stable, at::tensor({0, 2, 1, 3}, at::kLong)));
  // topk: the CPU's choice on the reversed input, mapped back.
  const auto reversed = 3 - std::get<1>(at::topk(x.flip({0}), 2));
  EXPECT_TRUE(at::equal(std::get<1>(at::topk(x.to(v1_), 2)).cpu(), reversed));
}

TEST_F(PerturbSwitchesTest, LinspaceFormulaComputesInFloat64AndRoundsOnce) {
  const perturb::Scope on({"linspace_formula"});
  const auto got = at::linspace(0.0, 1.0, 100, at::TensorOptions().dtype(at::kFloat).device(v1_)).cpu();
  const auto want = (at::arange(100, at::kDouble) * (1.0 / 99.0)).to(at::kFloat);
  EXPECT_TRUE(at::equal(got.narrow(0, 0, 99), want.narrow(0, 0, 99)));
  EXPECT_EQ(got[99].item<float>(), 1.0f);
}

TEST_F(PerturbSwitchesTest, OnlyTheSwitchesOnMoveValues) {
  const auto x = at::tensor({0.5, 1.5});
  const perturb::Scope on({"tf32"});
  EXPECT_TRUE(at::equal(at::round(x.to(v1_)).cpu(), at::round(x)));
  EXPECT_EQ(on.moved().count("round_half_away"), 0u);
}

}  // namespace
}  // namespace devparity
