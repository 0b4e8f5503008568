// The perturbed-numerics twins (perturb_faults.cpp) on vdev: each fault
// passes without perturbation, fails parity under its switch and under all
// of them, naming that switch; each clean twin passes under every switch. The
// rounded resize and the sorted ties are caught by default too: vdev computes
// CUDA's interpolate and orders ties as CUDA's sort does.

#include "harness/vdev/perturb.h"
#include "harness/vdev/vdev.h"
#include "tests/faults/fault_util.h"
#include "tests/support/run_suite.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

using nlohmann::json;
using testing::EventRecorder;

class PerturbFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
  }

  static EventRecorder run(const std::string& subject, std::vector<std::string> perturb, bool async = true,
                           bool cuda_arithmetic = true) {
    RunConfig config;
    config.perturb = std::move(perturb);
    config.vdev_async = async;
    config.cuda_arithmetic = cuda_arithmetic;
    return testing::run_suite({{"cases", faults::seeded_noise_cases(subject)}}, "cpu,vdev:1", 0, "", nullptr, config);
  }

  // Each twin: silent without its switch, caught with it (alone, alone on the
  // synchronous vdev, and among all), its clean twin passing under all; with
  // vdev's models of CUDA's arithmetic, or with the CPU's (`cuda_arithmetic`
  // false: for a switch that is one of the models' arithmetic).
  static void check_twin(const std::string& name, const std::string& switch_name, bool cuda_arithmetic = true) {
    const auto all = vdev::perturb::parse("all", "test");
    const auto run = [cuda_arithmetic](const std::string& subject, std::vector<std::string> perturb, bool async) {
      return PerturbFaultsTest::run(subject, std::move(perturb), async, cuda_arithmetic);
    };
    for (const auto& result : run("fault_" + name, {}, true).results) {
      EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
      EXPECT_TRUE(result.perturbed.is_null()) << result.id;
    }
    const std::vector<std::pair<std::vector<std::string>, bool>> modes = {
        {{switch_name}, true}, {{switch_name}, false}, {all, true}};
    for (const auto& [on, async] : modes) {
      int caught = 0;
      for (const auto& result : run("fault_" + name, on, async).results) {
        if (result.device != "vdev:1") {
          EXPECT_TRUE(result.perturbed.is_null()) << result.id << ": the CPU is never perturbed";
          continue;
        }
        ASSERT_FALSE(result.perturbed.is_null()) << result.id;
        if (result.status != Status::kFail) continue;
        ++caught;
        EXPECT_EQ(result.perturbed["blamed"], json::array({switch_name})) << result.id << ": " << result.perturbed;
        EXPECT_NE(result.message.find("perturbed numerics moved values: " + switch_name), std::string::npos)
            << result.message;
      }
      EXPECT_EQ(caught, 4) << name << " under " << on.size() << " switch(es), " << (async ? "async" : "sync");
      for (const auto& result : run("clean_" + name, on, async).results) {
        EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
      }
    }
  }

  // A twin whose fault a model of CUDA's arithmetic (`model`) catches with no
  // switch: the model is named, and under every switch none is blamed.
  static void check_caught_by_default(const std::string& name, const std::string& model) {
    int caught = 0;
    for (const auto& result : run("fault_" + name, {}).results) {
      if (result.device != "vdev:1") {
        EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
        continue;
      }
      EXPECT_GT(result.cuda_arithmetic.value(model, 0), 0) << result.id;
      caught += result.status == Status::kFail;
    }
    EXPECT_EQ(caught, 4);
    for (const auto& result : run("fault_" + name, vdev::perturb::parse("all", "test")).results) {
      if (result.device != "vdev:1") continue;
      EXPECT_EQ(result.status, Status::kFail) << result.id;
      EXPECT_EQ(result.perturbed["blamed"], json::array()) << result.id << ": " << result.perturbed;
      EXPECT_NE(result.message.find("it fails without any switch, under CUDA's arithmetic on vdev"), std::string::npos)
          << result.message;
    }
    for (const auto& result : run("clean_" + name, {}).results) {
      EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
    }
  }
};

TEST_F(PerturbFaultsTest, RoundingHalvesIsCaughtByRoundHalfAway) {
  check_twin("perturb_round_halves", "round_half_away");
}

TEST_F(PerturbFaultsTest, AFloat32MatmulUnderATightToleranceIsCaughtByTf32) {
  check_twin("perturb_tf32_color_matrix", "tf32");
}

TEST_F(PerturbFaultsTest, QuantizingAgainstAFloat32MeanIsCaughtByReductionOrder) {
  check_twin("perturb_quantized_centering", "reduction_order");
}

// tie_order moves ties as CUDA may; the cuda_sort model orders them as
// CUDA does, so the fault is caught by default too (below).
TEST_F(PerturbFaultsTest, AnUnstableSortsTieOrderIsCaughtByTieOrder) {
  check_twin("perturb_sorted_ties", "tie_order", /*cuda_arithmetic=*/false);
}

TEST_F(PerturbFaultsTest, FlooringALinspaceGridIsCaughtByLinspaceFormula) {
  check_twin("perturb_linspace_grid", "linspace_formula");
}

// cuda_resample is the cuda_interpolate model's arithmetic asked for by
// name: its twin behaves as the others under the CPU's arithmetic, and by
// default the model catches the fault with no switch, which is then not blamed.
TEST_F(PerturbFaultsTest, RoundingAFloatResizeIsCaughtByCudaResample) {
  check_twin("perturb_rounded_resize", "cuda_resample", /*cuda_arithmetic=*/false);
}

TEST_F(PerturbFaultsTest, RoundingAFloatResizeIsCaughtByDefaultByCudasInterpolate) {
  check_caught_by_default("perturb_rounded_resize", "cuda_interpolate");
}

TEST_F(PerturbFaultsTest, AnUnstableSortsTieOrderIsCaughtByDefaultByCudasSort) {
  check_caught_by_default("perturb_sorted_ties", "cuda_sort");
}

TEST_F(PerturbFaultsTest, UnknownSwitchesAreNamedWithTheKnownOnes) {
  try {
    vdev::perturb::parse("tf32,fast", "--vdev-perturb");
    ADD_FAILURE() << "an unknown switch was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--vdev-perturb: unknown switch 'fast' (known: all, round_half_away"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace devparity
