// Note [Autocast rows]: each row runs under its device type's autocast, the reference outside
// it, and the rows are judged at the lower precision's tolerance. The seeded fault (a one-pass
// variance that autocast's lower precision matmul cancels away) is caught on every row that
// runs; its clean twin passes; a device type without autocast skips with the reason.

#include "harness/device/autocast.h"
#include "tests/support/lambda_transform.h"
#include "tests/support/run_suite.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

using nlohmann::json;
using testing::EventRecorder;

json autocast_case(const std::string& subject, const json& autocast) {
  json c = {{"name", "ac"},
            {"subject", subject},
            {"inputs", {{{"pattern", "noise"}, {"shape", {2, 3, 5, 4}}}}},
            {"dtypes", {"float32"}}};
  if (!autocast.is_null()) c["autocast"] = autocast;
  return {{"cases", {c}}};
}

// Whether LibTorch's CPU has a kernel for a matmul in `dtype` (LibTorch 1.13's lacks float16).
bool cpu_matmul_runs(c10::ScalarType dtype) {
  try {
    const auto a = at::ones({2, 2}, at::TensorOptions().dtype(dtype));
    (void)at::matmul(a, a);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

class AutocastTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_builtins();
    // Its matmul is lowered under autocast and leaves its output in the lower precision.
    testing::register_lambda("t_lowered", [](const at::Tensor& x, const json&) {
      return at::matmul(x, at::eye(x.size(-1), x.options()));
    });
    testing::register_lambda("t_float64_output", [](const at::Tensor& x, const json&) { return x.to(at::kDouble); });
  }

  // The meta row and, where LibTorch has no autocast for it, the simulated device's row are
  // skipped, saying why; the others ran under autocast and their verdict is `ran`'s.
  static void expect_rows(const EventRecorder& r, const std::string& dtype, Status ran) {
    ASSERT_EQ(r.results.size(), 3u);
    for (const auto& row : r.results) {
      EXPECT_EQ(row.autocast, dtype) << row.id;
      const bool has_autocast = row.device == "cpu" || (row.device.rfind("vdev", 0) == 0 &&
                                                        autocast_unavailable(c10::DeviceType::PrivateUse1, at::kBFloat16).empty());
      if (has_autocast) {
        EXPECT_EQ(row.status, ran) << row.id << ": " << row.message;
        EXPECT_EQ(EventRecorder::check(row, "parity").status, ran) << row.message;
        continue;
      }
      EXPECT_EQ(row.status, Status::kSkip) << row.id << ": " << row.message;
      EXPECT_NE(row.message.find("no autocast"), std::string::npos) << row.message;
    }
  }
};

TEST_F(AutocastTest, TheCancellationIsCaughtOnEveryRowWithAutocast) {
  const auto r = testing::run_suite(autocast_case("fault_autocast_cancellation", "bfloat16"), "cpu,vdev:1,meta");
  expect_rows(r, "bfloat16", Status::kFail);
  const auto& parity = EventRecorder::check(r.results[0], "parity");
  EXPECT_NE(parity.message.find(r.results[0].id), std::string::npos) << parity.message;
  EXPECT_EQ(parity.stats["autocast"], "bfloat16");
  EXPECT_EQ(r.summary.exit_code(), 1);
}

TEST_F(AutocastTest, TheCleanTwinPassesAtTheLowerPrecisionsTolerance) {
  const auto r = testing::run_suite(autocast_case("clean_autocast_cancellation", "bfloat16"), "cpu,vdev:1,meta");
  expect_rows(r, "bfloat16", Status::kPass);
  const auto& parity = EventRecorder::check(r.results[0], "parity");
  EXPECT_GT(parity.stats["max_abs"].get<double>(), 0.0) << "the row ran in bfloat16, not float32";
  EXPECT_NE(parity.describe.find("bfloat16"), std::string::npos) << parity.describe;
}

TEST_F(AutocastTest, WithoutAutocastTheFaultIsNoFault) {
  // The seeded bug lives in the lower precision alone: the same case without autocast passes,
  // so the autocast rows are what catch it.
  const auto r = testing::run_suite(autocast_case("fault_autocast_cancellation", nullptr), "cpu,vdev:1,meta");
  for (const auto& row : r.results) {
    EXPECT_NE(row.status, Status::kFail) << row.id << ": " << row.message;
    EXPECT_EQ(row.autocast, "");
  }
}

TEST_F(AutocastTest, Float16RowsRunOrSayTheCpuLacksTheKernel) {
  const auto r = testing::run_suite(autocast_case("fault_autocast_cancellation", true), "cpu");
  ASSERT_EQ(r.results.size(), 1u);
  const auto& cpu = r.results[0];
  EXPECT_EQ(cpu.autocast, "float16");
  if (!autocast_unavailable(c10::DeviceType::CPU, at::kHalf).empty()) {
    EXPECT_EQ(cpu.status, Status::kSkip) << cpu.message;
    EXPECT_NE(cpu.message.find("no autocast: "), std::string::npos) << cpu.message;
  } else if (cpu_matmul_runs(at::kHalf)) {
    // float16's sums of ~10^5 overflow: the output is not finite where the reference's is.
    EXPECT_EQ(cpu.status, Status::kFail) << cpu.message;
  } else {
    EXPECT_EQ(cpu.status, Status::kSkip) << cpu.message;
    EXPECT_NE(cpu.message.find("unsupported on cpu"), std::string::npos) << cpu.message;
  }
  if (cpu.status == Status::kSkip) EXPECT_NE(cpu.message.find("Half"), std::string::npos) << cpu.message;
  // The refused row left the thread's autocast as it found it.
  const auto a = at::ones({2, 2});
  EXPECT_EQ(at::matmul(a, a).scalar_type(), at::kFloat);
}

TEST_F(AutocastTest, ALoweredOutputIsComparedInTheReferencesDtype) {
  const auto r = testing::run_suite(autocast_case("t_lowered", "bfloat16"), "cpu");
  const auto& parity = EventRecorder::check(r.results[0], "parity");
  EXPECT_EQ(parity.status, Status::kPass) << parity.message;
  EXPECT_EQ(parity.stats["output_dtype"], "bfloat16");
  EXPECT_EQ(parity.stats["reference_dtype"], "float32") << "the reference runs outside autocast";
  // Any other dtype is still a difference.
  auto other = autocast_case("t_float64_output", "bfloat16");
  other["cases"][0]["reference"] = {{"subject", "t_lowered"}};
  const auto wide = testing::run_suite(other, "cpu");
  const auto& wrong = EventRecorder::check(wide.results[0], "parity");
  EXPECT_EQ(wrong.status, Status::kFail);
  EXPECT_NE(wrong.message.find("dtype float64 differs from the reference's float32"), std::string::npos)
      << wrong.message;
}

TEST_F(AutocastTest, TheScopeRestoresTheThreadsAutocastState) {
  // A row's autocast ends with it: the next computation on the thread runs in float32.
  const auto a = at::ones({2, 2});
  {
    const AutocastScope scope(c10::DeviceType::CPU, at::kBFloat16);
    EXPECT_EQ(at::matmul(a, a).scalar_type(), at::kBFloat16);
  }
  EXPECT_EQ(at::matmul(a, a).scalar_type(), at::kFloat);
  EXPECT_NE(autocast_unavailable(c10::DeviceType::Meta, at::kBFloat16), "");
  EXPECT_EQ(autocast_unavailable(c10::DeviceType::CPU, at::kBFloat16), "");
}

}  // namespace
}  // namespace devparity
