#include "harness/run/run_verdict.h"
#include "harness/run/runner.h"

#include "harness/vdev/vdev.h"
#include "tests/support/lambda_transform.h"
#include "tests/support/run_suite.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>
#include <torch/library.h>

#include <set>

// An operator with a meta kernel and no CPU kernel, in every LibTorch: the
// subject of a missing-kernel test that does not depend on a release's gaps.
TORCH_LIBRARY(devparity_runner_test, m) { m.def("meta_only(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(devparity_runner_test, Meta, m) {
  m.impl("meta_only", [](const at::Tensor& x) { return at::empty_like(x); });
}

namespace devparity {
namespace {

using nlohmann::json;
using testing::EventRecorder;

json one_case(const std::string& subject, json extra = json::object()) {
  json c = {{"name", "c"}, {"subject", subject}, {"inputs", {{{"shape", {1, 2, 5, 4}}}}},
            {"dtypes", {"float32"}}};
  for (const auto& item : extra.items()) c[item.key()] = item.value();
  return {{"cases", {c}}};
}

class RunnerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_builtins();
    testing::register_lambda("t_identity", [](const at::Tensor& x, const json&) { return x * 1; });
    testing::register_lambda("t_throws", [](const at::Tensor&, const json&) -> at::Tensor {
      throw std::runtime_error("boom");
    });
    // A stray CPU tensor, as a random transform that builds its parameters
    // on the default device.
    testing::register_lambda("t_mixes_devices", [](const at::Tensor& x, const json&) {
      return x + at::ones({x.size(3)});
    });
    // at::flip has no meta kernel in LibTorch 1.13.
    testing::register_lambda("t_flips", [](const at::Tensor& x, const json&) { return x.flip({3}); });
    // A factory without a device: the output lands on the CPU whatever the input's device.
    testing::register_lambda("t_cpu_output", [](const at::Tensor& x, const json&) {
      return at::zeros(x.sizes(), at::TensorOptions().dtype(x.scalar_type()));
    });
    testing::register_lambda("t_noisy", [](const at::Tensor& x, const json&) {
      return x + 1e-3;
    });
    // Draws from the global generator on the host, as torchvision does.
    testing::register_lambda("t_host_draw", [](const at::Tensor& x, const json&) {
      const double gain = at::empty({1}).uniform_(0.5, 1.5).item<double>();
      const auto flip = at::randint(0, 2, {1}).item<int64_t>() == 1;
      return (flip ? x.neg() : x) * gain;
    });
    // Draws on the device: its generator is its own.
    testing::register_lambda("t_device_draw", [](const at::Tensor& x, const json&) {
      return x + at::rand(x.sizes(), x.options());
    });
    testing::register_lambda("t_meta_only", [](const at::Tensor& x, const json&) {
      static const auto op = c10::Dispatcher::singleton()
                                 .findSchemaOrThrow("devparity_runner_test::meta_only", "")
                                 .typed<at::Tensor(const at::Tensor&)>();
      const at::AutoDispatchBelowAutograd no_autograd_kernel;  // it has none either
      return op.call(x);
    });
    // A kernel the simulator lacks, raised as the virtual device raises its gaps (views and
    // complex numbers, its last known ones, now run: tests/vdev/views_test.cpp).
    testing::register_lambda("t_simulator_gap", [](const at::Tensor& x, const json&) {
      TORCH_CHECK_NOT_IMPLEMENTED(x.device().type() != c10::DeviceType::PrivateUse1,
                                  "Could not run 'aten::_nested_view_from_buffer' on devparity's virtual device");
      return x * 1.0;
    });
  }
};

TEST_F(RunnerTest, EventsArriveInOrder) {
  const auto r = testing::run_suite(one_case("t_identity"), "cpu,meta");
  EXPECT_EQ(r.events, (std::vector<std::string>{
                          "run_start", "case_start:c",
                          "trial_start:c/t_identity/float32/cpu/noise-1x2x5x4",
                          "trial_end:c/t_identity/float32/cpu/noise-1x2x5x4",
                          "trial_start:c/t_identity/float32/meta/noise-1x2x5x4",
                          "trial_end:c/t_identity/float32/meta/noise-1x2x5x4", "case_end:c",
                          "run_end"}));
  EXPECT_EQ(r.info.planned_trials, 2);
  EXPECT_EQ(r.summary.results.passed, 2);
  EXPECT_EQ(r.summary.exit_code(), 0);
}

TEST_F(RunnerTest, ReferenceRowRunsOnceOthersAreCompared) {
  const auto r = testing::run_suite(one_case("t_identity"), "cpu,meta");
  const auto& cpu = r.results[0];
  // The reference row: run, placement and gradient (finite differences; a
  // skip here, the lambda is not differentiable), but no parity with itself.
  std::vector<std::string> names;
  for (const auto& c : cpu.checks) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"run", "gradient", "placement"}));
  EXPECT_EQ(EventRecorder::check(cpu, "gradient").status, Status::kSkip);
  EXPECT_EQ(cpu.status, Status::kPass);
  const auto& meta = r.results[1];
  EXPECT_EQ(EventRecorder::check(meta, "parity").status, Status::kPass);
  EXPECT_NE(meta.message.find("values not compared on meta"), std::string::npos) << meta.message;
}

TEST_F(RunnerTest, AbsentDevicesAreSkippedWithTheReason) {
  const auto r = testing::run_suite(one_case("t_identity"), "cpu,cuda:0,cuda:N");
  ASSERT_EQ(r.results.size(), 3u);
  EXPECT_EQ(r.results[1].status, Status::kSkip);
  EXPECT_NE(r.results[1].message.find("CUDA"), std::string::npos) << r.results[1].message;
  EXPECT_EQ(r.results[2].status, Status::kSkip);
  EXPECT_NE(r.results[2].message.find("two or more"), std::string::npos) << r.results[2].message;
  EXPECT_EQ(r.summary.by_device.at("cuda:N").skipped, 1);
}

TEST_F(RunnerTest, ExceptionsBecomeFailuresNotCrashes) {
  const auto r = testing::run_suite(one_case("t_throws"), "cpu,meta");
  for (const auto& result : r.results) {
    EXPECT_EQ(result.status, Status::kFail) << result.id;
    EXPECT_NE(result.message.find("boom"), std::string::npos) << result.message;
  }
  EXPECT_EQ(r.summary.exit_code(), 1);
}

TEST_F(RunnerTest, StrayCpuTensorIsCaughtOnEveryDevice) {
  const auto r = testing::run_suite(one_case("t_mixes_devices"), "cpu,meta");
  // On the CPU the sum works, but the device-less factory's tensor meets
  // the input in it: the factory and the op are reported, the factory first.
  const auto& cpu = r.results[0];
  EXPECT_EQ(EventRecorder::check(cpu, "run").status, Status::kPass);
  const auto& cpu_placement = EventRecorder::check(cpu, "placement");
  EXPECT_EQ(cpu_placement.status, Status::kFail);
  ASSERT_EQ(cpu_placement.findings.size(), 2u) << cpu_placement.findings.dump(1);
  EXPECT_EQ(cpu_placement.findings[0]["kind"], "implicit_device_factory");
  EXPECT_EQ(cpu_placement.findings[0]["op"], "aten::ones");
  EXPECT_EQ(cpu_placement.findings[1]["kind"], "foreign_device_input");
  EXPECT_EQ(cpu_placement.findings[1]["op"], "aten::add.Tensor");
  // On meta the sum itself fails: a placement failure naming the op and both devices.
  const auto& meta = r.results[1];
  EXPECT_EQ(meta.status, Status::kFail);
  const auto& run = EventRecorder::check(meta, "run");
  EXPECT_EQ(run.stats["error_kind"], "device_mismatch");
  EXPECT_NE(run.message.find("aten::add.Tensor"), std::string::npos) << run.message;
  const auto& placement = EventRecorder::check(meta, "placement");
  EXPECT_EQ(placement.status, Status::kFail);
  std::set<std::string> kinds;
  for (const auto& f : placement.findings) {
    kinds.insert(f["kind"].get<std::string>());
    if (f["kind"] == "device_mismatch_error") {
      EXPECT_EQ(f["op"], "aten::add.Tensor");
      EXPECT_EQ(f["device"], "meta and cpu");
    }
    if (f["kind"] == "foreign_device_input") {
      EXPECT_EQ(f["op"], "aten::add.Tensor");
      EXPECT_EQ(f["device"], "cpu");
      EXPECT_EQ(f["shape"], json({4}));
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"implicit_device_factory", "foreign_device_input",
                                          "device_mismatch_error"}));
  EXPECT_EQ(EventRecorder::check(meta, "parity").status, Status::kSkip);
}

TEST_F(RunnerTest, MissingMetaKernelIsASkipNotAFailure) {
  const auto r = testing::run_suite(one_case("t_flips"), "cpu,meta");
  const auto& meta = r.results[1];
  EXPECT_EQ(meta.status, Status::kSkip);
  EXPECT_NE(meta.message.find("unsupported on meta"), std::string::npos) << meta.message;
  EXPECT_NE(meta.message.find("aten::flip"), std::string::npos) << meta.message;
}

TEST_F(RunnerTest, OutputOnTheWrongDeviceFailsParity) {
  const auto r = testing::run_suite(one_case("t_cpu_output"), "cpu,meta");
  const auto& meta = r.results[1];
  EXPECT_EQ(meta.status, Status::kFail);
  const auto& parity = EventRecorder::check(meta, "parity");
  EXPECT_NE(parity.message.find("output is on cpu, expected meta"), std::string::npos)
      << parity.message;
  EXPECT_NE(parity.message.find(meta.id), std::string::npos) << "names the trial";
}

TEST_F(RunnerTest, ReferenceSubjectComparesEveryRow) {
  const auto r = testing::run_suite(
      one_case("t_noisy", {{"reference", {{"subject", "t_identity"}}}}), "cpu,meta");
  const auto& cpu = r.results[0];
  ASSERT_EQ(cpu.checks.size(), 4u);  // run, gradient, parity, placement: compared, not a reference row
  EXPECT_EQ(cpu.status, Status::kFail);
  EXPECT_EQ(cpu.reference_subject, "t_identity");
  const auto& parity = EventRecorder::check(cpu, "parity");
  EXPECT_NEAR(parity.stats["max_abs"].get<double>(), 1e-3, 1e-6);
  EXPECT_EQ(parity.stats["mismatches"], 40);

  const auto tolerated = testing::run_suite(
      one_case("t_noisy", {{"reference", {{"subject", "t_identity"}}},
                           {"checks", {{"parity", {{"atol", 2e-3}, {"reason", "offset"}}}}}}),
      "cpu");
  EXPECT_EQ(tolerated.results[0].status, Status::kPass);
}

TEST_F(RunnerTest, UnsupportedReferenceSkipsTheComparisons) {
  json suite = one_case("t_meta_only");
  const auto r = testing::run_suite(suite, "cpu,meta");
  EXPECT_EQ(r.results[0].status, Status::kSkip);
  EXPECT_NE(r.results[0].message.find("unsupported on cpu"), std::string::npos);
  // meta runs the op: placement is verified, parity has nothing to compare with.
  const auto& parity = EventRecorder::check(r.results[1], "parity");
  EXPECT_EQ(r.results[1].status, Status::kPass) << r.results[1].message;
  EXPECT_EQ(parity.status, Status::kSkip);
  EXPECT_NE(parity.message.find("no reference output"), std::string::npos) << parity.message;

  // Against another subject that does run, the subject's own missing kernel on
  // the reference device is still a skip, not "cpu runs it but cpu does not".
  suite["cases"][0]["reference"] = {{"subject", "resize"}, {"params", {{"size", {5, 4}}}}};
  const auto cross = testing::run_suite(suite, "cpu");
  EXPECT_EQ(cross.results[0].status, Status::kSkip) << cross.results[0].message;
  EXPECT_NE(cross.results[0].message.find("unsupported on cpu"), std::string::npos)
      << cross.results[0].message;
}

TEST_F(RunnerTest, AKernelTheVirtualDeviceLacksIsASkipNotAFailure) {
  // The simulator runs the CPU's kernels; one it lacks is its own gap, not
  // the subject's.
  if (vdev::device_count() < 2) GTEST_SKIP() << "this build has no virtual device";
  const auto r = testing::run_suite(one_case("t_simulator_gap"), "cpu,vdev:1");
  EXPECT_EQ(r.results[0].status, Status::kPass);
  const auto& run = EventRecorder::check(r.results[1], "run");
  EXPECT_EQ(run.status, Status::kSkip);
  EXPECT_EQ(run.message.rfind("unsupported on the simulated vdev:1", 0), 0u) << run.message;
}

TEST_F(RunnerTest, DrawsOnTheHostInsideApplyAreReplayedOnEveryDevice) {
  // torchvision's pattern: parameters drawn from the global generator in forward.
  if (vdev::device_count() < 2) GTEST_SKIP() << "this build has no virtual device";
  const auto r = testing::run_suite(one_case("t_host_draw"), "cpu,vdev:0,vdev:1,meta");
  for (const auto& result : r.results) {
    EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
    EXPECT_TRUE(EventRecorder::check(result, "placement").findings.empty()) << result.id;
  }
  EXPECT_EQ(EventRecorder::check(r.results[2], "parity").message, "identical to the reference");
}

TEST_F(RunnerTest, DrawsOnTheDeviceMakeParityNotComparableUnlessTheCaseAsks) {
  if (vdev::device_count() < 2) GTEST_SKIP() << "this build has no virtual device";
  const auto r = testing::run_suite(one_case("t_device_draw"), "cpu,vdev:1");
  const auto& parity = EventRecorder::check(r.results[1], "parity");
  EXPECT_EQ(parity.status, Status::kSkip);
  EXPECT_EQ(parity.message.rfind("not comparable: the subject draws random numbers on vdev:1 (aten::rand", 0), 0u)
      << parity.message;
  EXPECT_EQ(r.results[1].status, Status::kPass);
  // Asked to compare: the simulator draws from the replayed CPU generator.
  const auto asked = testing::run_suite(
      one_case("t_device_draw", {{"checks", {{"parity", {{"device_random", "compare"}}}}}}), "cpu,vdev:1");
  EXPECT_EQ(EventRecorder::check(asked.results[1], "parity").status, Status::kPass)
      << EventRecorder::check(asked.results[1], "parity").message;
}

TEST(FailedRunVerdictTest, AKernelOneDeviceLacksIsAFailure) {
  // Built by hand: a CPU build cannot run CUDA, but the verdict logic is the same.
  DeviceTarget cuda1{"cuda:N", c10::Device(c10::DeviceType::CUDA, 1), ""};
  ClassifiedError missing{FailureKind::kUnsupported,
                          "\"upsample_bilinear2d_aa\" not implemented for 'Byte'", ""};
  const auto fail = failed_run_verdict(missing, cuda1, false, true, "cpu");
  EXPECT_EQ(fail.status, Status::kFail);
  EXPECT_EQ(fail.message.rfind("cpu runs it but cuda:1 does not", 0), 0u) << fail.message;
  // Nowhere supported: the subject does not do this; a skip.
  EXPECT_EQ(failed_run_verdict(missing, cuda1, false, false, "cpu").status, Status::kSkip);
  // On the reference device itself: a skip, saying so.
  DeviceTarget cpu{"cpu", c10::Device(c10::DeviceType::CPU), ""};
  const auto here = failed_run_verdict(missing, cpu, true, false, "cpu");
  EXPECT_EQ(here.status, Status::kSkip);
  EXPECT_NE(here.message.find("unsupported on cpu"), std::string::npos);
  // On meta a missing kernel never fails.
  DeviceTarget meta{"meta", c10::Device(c10::DeviceType::Meta), ""};
  EXPECT_EQ(failed_run_verdict(missing, meta, false, true, "cpu").status, Status::kSkip);
  // Nor on the simulated accelerator: its gap is not the subject's.
  DeviceTarget vdev1{"vdev:1", c10::Device(c10::DeviceType::PrivateUse1, 1), ""};
  const auto simulated = failed_run_verdict(missing, vdev1, false, true, "cpu");
  EXPECT_EQ(simulated.status, Status::kSkip);
  EXPECT_NE(simulated.message.find("unsupported on the simulated vdev:1"), std::string::npos) << simulated.message;
  ClassifiedError mismatch{FailureKind::kDeviceMismatch, "Expected all tensors ...", "aten::add"};
  const auto m = failed_run_verdict(mismatch, cuda1, false, true, "cpu");
  EXPECT_EQ(m.status, Status::kFail);
  EXPECT_EQ(m.message.rfind("device mismatch in aten::add: ", 0), 0u) << m.message;
  EXPECT_TRUE(m.findings.empty()) << "the placement check carries the finding";
}

}  // namespace
}  // namespace devparity
