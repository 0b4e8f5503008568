// CUDA's arithmetic on vdev (Note [CUDA's arithmetic on vdev]) through the
// runner, on the colour-matrix twins (perturb_faults.cpp): a float32 matmul
// judged at float32's tolerance fails on vdev while the process allows TF32
// matmuls, as on a GPU, naming the model and the setting; its clean twin
// (the product in float64) passes; with TF32 not allowed the product (depth
// 3) takes cuBLAS's FMA order (sgemm_fma), within float32's tolerance, and
// passes; with the run's CUDA arithmetic off, vdev equals the CPU.

#include "harness/vdev/vdev.h"
#include "tests/faults/fault_util.h"
#include "tests/support/run_suite.h"
#include "tests/support/schema.h"
#include "tests/support/temp_dir.h"

#include <ATen/Context.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

using testing::EventRecorder;

class CudaArithmeticFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
  }
  void TearDown() override { at::globalContext().setAllowTF32CuBLAS(was_); }

  static EventRecorder run(const std::string& subject, bool cuda_arithmetic, const std::string& report = "") {
    RunConfig config;
    config.cuda_arithmetic = cuda_arithmetic;
    config.report = report;
    return testing::run_suite({{"cases", faults::seeded_noise_cases(subject)}}, "cpu,vdev:1", 0, "", nullptr, config);
  }

  // Every trial passes; vdev's moved values (if any) only by `model`.
  static void expect_all_pass(const EventRecorder& recorder, const std::string& model = "") {
    ASSERT_EQ(recorder.results.size(), 8u);
    for (const auto& result : recorder.results) {
      EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
      if (model.empty() || result.device != "vdev:1") {
        EXPECT_TRUE(result.cuda_arithmetic.is_null()) << result.id << ": " << result.cuda_arithmetic;
        continue;
      }
      ASSERT_TRUE(result.cuda_arithmetic.is_object()) << result.id;
      EXPECT_EQ(result.cuda_arithmetic.size(), 1u) << result.cuda_arithmetic;
      EXPECT_GT(result.cuda_arithmetic.value(model, 0), 0) << result.cuda_arithmetic;
    }
  }

  const bool was_ = at::globalContext().allowTF32CuBLAS();
};

TEST_F(CudaArithmeticFaultsTest, AFloat32MatmulFailsOnVdevWhileTf32IsAllowed) {
  at::globalContext().setAllowTF32CuBLAS(true);
  const testing::TempDir dir;
  const auto report = dir.path() + "/report.json";
  int caught = 0;
  for (const auto& result : run("fault_perturb_tf32_color_matrix", true, report).results) {
    if (result.device != "vdev:1") {
      EXPECT_EQ(result.status, Status::kPass) << result.id << ": the CPU keeps its arithmetic: " << result.message;
      EXPECT_TRUE(result.cuda_arithmetic.is_null()) << result.id;
      continue;
    }
    ASSERT_TRUE(result.cuda_arithmetic.is_object()) << result.id;
    EXPECT_GT(result.cuda_arithmetic.value("tf32_matmul", 0), 0) << result.cuda_arithmetic;
    if (result.status != Status::kFail) continue;
    ++caught;
    EXPECT_NE(result.message.find("CUDA's arithmetic on vdev moved values: tf32_matmul in "), std::string::npos)
        << result.message;
    EXPECT_NE(result.message.find("(torch.backends.cuda.matmul.allow_tf32 is on)"), std::string::npos)
        << result.message;
  }
  EXPECT_EQ(caught, 4);
  // The report file holds what moved, within the schema (read_report_file checks it).
  int moved_rows = 0;
  const auto read_back = testing::read_report_file(report);
  for (const auto& r : read_back.at("results")) moved_rows += r.contains("cuda_arithmetic");
  EXPECT_EQ(moved_rows, 4);
  expect_all_pass(run("clean_perturb_tf32_color_matrix", true));
}

TEST_F(CudaArithmeticFaultsTest, WithoutTf32OrWithTheCpusArithmeticTheTwinPasses) {
  at::globalContext().setAllowTF32CuBLAS(false);
  expect_all_pass(run("fault_perturb_tf32_color_matrix", true), "sgemm_fma");
  at::globalContext().setAllowTF32CuBLAS(true);
  expect_all_pass(run("fault_perturb_tf32_color_matrix", false));
}

}  // namespace
}  // namespace devparity
