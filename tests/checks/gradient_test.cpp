// The gradient check: finite differences catch a wrong gradient on the
// reference row, the cross-device comparison catches a gradient that differs
// only off the CPU, and backward ops are traced; clean twins pass.

#include "harness/vdev/vdev.h"
#include "tests/support/lambda_transform.h"
#include "tests/support/run_suite.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

using nlohmann::json;
using testing::EventRecorder;

EventRecorder run(const std::string& subject, const std::string& devices,
                  const std::string& dtype = "float32") {
  return testing::run_suite(
      {{"cases", {{{"name", "g"}, {"subject", subject}, {"inputs", {{{"shape", {1, 2, 5, 4}}}}},
                   {"dtypes", {dtype}}}}}},
      devices);
}

// A copy: callers pass temporaries.
CheckOutcome gradient(const EventRecorder& r, const std::string& device) {
  for (const auto& result : r.results) {
    if (result.device == device) return EventRecorder::check(result, "gradient");
  }
  throw std::out_of_range(device);
}

// sin(k x) / k with k = 3e4: a smooth loss whose third derivative (k^2) puts one central
// difference at h = 1e-6 off by ~1.5e-4, as the differentiable JPEG's soft rounding at quality
// 99 did; its gradient, cos(k x), is right.
class SteepSine final : public Transform {
 public:
  SteepSine() {
    info_.name = "t_steep_sine";
    info_.family = "test";
    info_.description = "sin(3e4 x) / 3e4";
    info_.dtypes = {at::kFloat};
    info_.differentiable = true;
  }
  const TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json&, c10::IntArrayRef, at::Generator&) const override {
    return nlohmann::json::object();
  }
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override { return at::sin(x * 3e4) / 3e4; }

 private:
  TransformInfo info_;
};

class GradientCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (TransformRegistry::global().find("t_steep_sine") == nullptr) {
      TransformRegistry::global().add(std::make_unique<SteepSine>());
    }
    if (vdev::device_count() < 2) GTEST_SKIP() << "this build has no virtual device";
  }
};

TEST_F(GradientCheckTest, FiniteDifferencesCatchAWrongGradient) {
  const auto fault = gradient(run("fault_grad_detached", "cpu"), "cpu");
  EXPECT_EQ(fault.status, Status::kFail);
  EXPECT_NE(fault.message.find("finite differences"), std::string::npos) << fault.message;
  EXPECT_GT(fault.stats["max_error"].get<double>(), 0.1);
  const auto clean = gradient(run("clean_grad_detached", "cpu"), "cpu");
  EXPECT_EQ(clean.status, Status::kPass) << clean.message;
  EXPECT_LT(clean.stats["max_error"].get<double>(), 1e-6);
}

// Richardson extrapolation: a steep but smooth loss is no false alarm.
TEST_F(GradientCheckTest, FiniteDifferencesHoldOnASteepSmoothLoss) {
  const auto clean = gradient(run("t_steep_sine", "cpu"), "cpu");
  EXPECT_EQ(clean.status, Status::kPass) << clean.message;
  EXPECT_LT(clean.stats["max_error"].get<double>(), 1e-6) << clean.stats.dump();
  EXPECT_EQ(clean.stats["redrawn_across_a_jump"], 0);
}

// A NaN gradient is no "worst relative error 0": the reference row fails and says NaN.
TEST_F(GradientCheckTest, FiniteDifferencesFailANanGradient) {
  const auto fault = gradient(run("fault_grad_where_nan", "cpu"), "cpu");
  EXPECT_EQ(fault.status, Status::kFail) << fault.message;
  EXPECT_EQ(fault.stats["max_error"], "NaN");
  EXPECT_NE(fault.message.find("worst relative error NaN"), std::string::npos) << fault.message;
  const auto clean = gradient(run("clean_grad_where_nan", "cpu"), "cpu");
  EXPECT_EQ(clean.status, Status::kPass) << clean.message;
  EXPECT_LT(clean.stats["max_error"].get<double>(), 1e-6);
}

TEST_F(GradientCheckTest, CrossDeviceComparisonCatchesADeviceOnlyGradient) {
  const auto r = run("fault_grad_device_dependent", "cpu,vdev:1");
  EXPECT_EQ(gradient(r, "cpu").status, Status::kPass);  // right on the CPU
  const auto v1 = gradient(r, "vdev:1");
  EXPECT_EQ(v1.status, Status::kFail);
  EXPECT_NE(v1.message.find("gradient: 40 of 40 elements"), std::string::npos) << v1.message;
  // The forward is the same everywhere: only the gradient check sees it.
  EXPECT_EQ(EventRecorder::check(r.results[1], "parity").status, Status::kPass);
  for (const auto& result : run("clean_grad_device_dependent", "cpu,vdev:1").results) {
    EXPECT_EQ(EventRecorder::check(result, "gradient").status, Status::kPass) << result.id;
  }
}

TEST_F(GradientCheckTest, BackwardOpsAreTraced) {
  const auto r = run("fault_backward_cpu_factory", "cpu,vdev:1");
  for (const std::string device : {"cpu", "vdev:1"}) {
    const auto g = gradient(r, device);
    EXPECT_EQ(g.status, Status::kFail) << device << ": " << g.message;
    bool factory = false;
    for (const auto& f : g.findings) {
      if (f["kind"] == "implicit_device_factory") {
        factory = true;
        EXPECT_EQ(f["op"], "aten::full");
        EXPECT_EQ(f["scopes"].back(), "double_backward") << f.dump();
      }
    }
    EXPECT_TRUE(factory) << device << ": " << g.findings.dump(1);
  }
  for (const auto& result : run("clean_backward_cpu_factory", "cpu,vdev:1").results) {
    const auto& g = EventRecorder::check(result, "gradient");
    EXPECT_EQ(g.status, Status::kPass) << result.id << ": " << g.message;
    EXPECT_TRUE(g.findings.empty()) << g.findings.dump(1);
    EXPECT_GT(g.stats["backward_ops_traced"].get<int64_t>(), 0);
  }
}

TEST_F(GradientCheckTest, SkipsWhatHasNoGradient) {
  EXPECT_EQ(gradient(run("gaussian_illumination", "cpu", "uint8"), "cpu").status, Status::kSkip);
  testing::register_lambda("t_not_differentiable", [](const at::Tensor& x, const json&) { return x; });
  const auto r = gradient(
      testing::run_suite({{"cases", {{{"name", "g"}, {"subject", "t_not_differentiable"}}}}}, "cpu"),
      "cpu");
  EXPECT_EQ(r.status, Status::kSkip);
  EXPECT_EQ(r.message, "the subject is not differentiable");
}

}  // namespace
}  // namespace devparity
