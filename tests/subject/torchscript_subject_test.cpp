// TorchScript subjects in-process: state moved by replacement (meta too),
// unregistered attributes, the device-branch scan, extra arguments, and the
// interpreter's error text.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/builtins.h"
#include "harness/subject/execution.h"
#include "harness/subject/state.h"
#include "harness/subject/subject_kind.h"
#include "harness/suite/inputs.h"
#include "harness/trace/tracer.h"
#include "tests/support/run_suite.h"
#include "tests/support/schema.h"
#include "tests/support/temp_dir.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/record_function.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include <functional>
#include <set>
#include <string>

namespace devparity {
namespace {

using nlohmann::json;

std::string fixture(const std::string& name) {
  return testing::source_path("tests/fixtures/torchscript/" + name + ".pt");
}

std::shared_ptr<const Transform> load(const json& declaration) {
  register_builtins();
  ObjectReader reader(declaration, "/subject");
  auto subject = SubjectKindRegistry::global().find("torchscript")->load(reader, declaration_context(""));
  reader.finish();
  return subject;
}

std::vector<Finding> audit(const Transform& subject, const json& params, const c10::Device& device,
                           std::unique_ptr<TransformState>& state) {
  state = dynamic_cast<const StatefulTransform&>(subject).make_state(params, at::kFloat);
  state->to(device);
  std::vector<Finding> out;
  state->audit(device, out);
  return out;
}

// The ops `fn` dispatches on this thread, by name.
std::set<std::string> ops_called(const std::function<void()>& fn) {
  static thread_local std::set<std::string>* sink = nullptr;
  std::set<std::string> out;
  sink = &out;
  const auto handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback([](const at::RecordFunction& f) -> std::unique_ptr<at::ObserverContext> {
        if (sink != nullptr) sink->insert(f.name());
        return nullptr;
      }).scopes({at::RecordScope::FUNCTION}));
  fn();
  at::removeCallback(handle);
  sink = nullptr;
  return out;
}

json sample(const Transform& subject, const json& given = json::object()) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(7);
  return subject.sample(given, {1, 3, 5, 4}, gen);
}

TEST(TorchScriptSubject, BuffersFollowTheSubjectToMeta) {
  const auto subject = load({{"torchscript", fixture("gain_clean")}});
  EXPECT_EQ(subject->info().name, "gain_clean");
  EXPECT_EQ(subject->info().family, "torchscript");
  std::unique_ptr<TransformState> state;
  const c10::Device meta(c10::DeviceType::Meta);
  EXPECT_TRUE(audit(*subject, sample(*subject), meta, state).empty());
  ASSERT_EQ(state->tensors().size(), 1u);
  EXPECT_EQ(state->tensors()[0].first, "gain");
  EXPECT_TRUE(state->tensors()[0].second.is_meta());
  const auto x = at::rand({1, 3, 5, 4}).to(meta);
  const auto y = dynamic_cast<const StatefulTransform&>(*subject).apply(x, json::object(), *state);
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.sizes(), x.sizes());
  // On the CPU the values are the module's.
  const auto cpu = at::rand({1, 3, 5, 4});
  const auto out = subject->apply(cpu, json::object());
  const auto gain = at::tensor({0.9, 1.0, 1.1}, at::kFloat).view({1, 3, 1, 1});
  EXPECT_TRUE(at::allclose(out, cpu * gain));
}

TEST(TorchScriptSubject, UnregisteredAttributesAreKeptStateJudgedWhereTheyMeetTheImage) {
  const auto subject = load({{"torchscript", fixture("gain_unregistered")}});
  const auto* stateful = dynamic_cast<const StatefulTransform*>(subject.get());
  ASSERT_NE(stateful, nullptr);
  for (auto device : {c10::Device(c10::DeviceType::CPU), c10::Device(c10::DeviceType::Meta)}) {
    std::unique_ptr<TransformState> state;
    // Not a finding by itself: a table read only on the host is host work.
    EXPECT_TRUE(audit(*subject, sample(*subject), device, state).empty()) << device;
    EXPECT_TRUE(state->tensors().empty());
    TraceSeeds seeds;
    state->seed_trace(seeds);
    ASSERT_EQ(seeds.kept_state.size(), 1u);
    EXPECT_EQ(seeds.kept_state[0].first, "gain");
    EXPECT_TRUE(seeds.kept_state[0].second.is_cpu()) << "left where it was made";
    // Where it meets the image, it is the error.
    const auto x = at::rand({1, 3, 5, 4}).to(device);
    seeds.device_data.push_back(x);
    std::vector<Finding> found;
    {
      Tracer tracer(device, seeds);
      try {
        (void)stateful->apply(x, sample(*subject), *state);
      } catch (const std::exception&) {  // meta refuses the mix too
      }
      found = tracer.findings();
    }
    ASSERT_FALSE(found.empty()) << device;
    EXPECT_EQ(found[0].kind, "unregistered_tensor_state") << device;
    EXPECT_EQ(found[0].device, "cpu");
    EXPECT_NE(found[0].message.find("'gain'"), std::string::npos) << found[0].message;
    EXPECT_EQ(found[0].source.rfind("tools/make_torchscript_fixtures.py:", 0), 0u) << found[0].source;
  }
}

TEST(TorchScriptSubject, DeviceBranchesAreFoundStatically) {
  std::unique_ptr<TransformState> state;
  const auto branchy = load({{"torchscript", fixture("halve_device_branch")}});
  const auto found = audit(*branchy, sample(*branchy), c10::Device(c10::DeviceType::CPU), state);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, "device_dependent_code");
  EXPECT_EQ(found[0].op, "aten::eq");
  EXPECT_EQ(found[0].source.rfind("tools/make_torchscript_fixtures.py:", 0), 0u) << found[0].source;
  const auto clean = load({{"torchscript", fixture("halve_clean")}});
  EXPECT_TRUE(audit(*clean, sample(*clean), c10::Device(c10::DeviceType::CPU), state).empty());
}

TEST(TorchScriptSubject, ExtraArgumentsAreStateAndParameters) {
  const json declaration = {{"torchscript", fixture("blend")},
                            {"arguments", {"image", {{"tensor", {{"pattern", "constant"}, {"value", 1.0}, {"shape", {1, 3, 5, 4}}}}}, {{"param", "alpha"}}}}};
  const auto subject = load(declaration);
  ASSERT_EQ(subject->info().params.size(), 2u);
  EXPECT_EQ(subject->info().params[0].name, "argument_seed");  // argument order
  EXPECT_EQ(subject->info().params[1].name, "alpha");
  const auto params = sample(*subject, {{"alpha", 0.25}});
  ASSERT_TRUE(params.contains("argument_seed"));
  EXPECT_EQ(sample(*subject, params), params);  // a report's parameters replay as they are
  const auto x = at::zeros({1, 3, 5, 4});
  const auto y = subject->apply(x, params);
  EXPECT_TRUE(at::allclose(y, at::full_like(x, 0.25)));  // 0 * 0.75 + 1 * 0.25
  // The other image moves with the subject.
  std::unique_ptr<TransformState> state;
  (void)audit(*subject, params, c10::Device(c10::DeviceType::Meta), state);
  EXPECT_TRUE(state->tensor("argument1").is_meta());
  // A parameter the arguments do not take, or a missing one, is a field error.
  EXPECT_THROW(sample(*subject, {{"alpha", 0.5}, {"beta", 1}}), FieldError);
  EXPECT_THROW(sample(*subject), FieldError);
  EXPECT_THROW(sample(*subject, {{"alpha", "half"}}), FieldError);
}

// Note [Unoptimised subject calls]: a factory of constants is seen on every
// call through execute(), however many, while the thread's own setting stays
// as it was.
TEST(TorchScriptSubject, EveryCallRunsUnoptimisedAndTheThreadKeepsItsSetting) {
  register_builtins();
  // A factory of constants, which the optimising executor folds after its profiled calls.
  torch::jit::Module module("ConstantGain");
  module.define("def forward(self, x):\n    return x * torch.full([1], 2.0)\n");
  testing::TempDir dir;
  const auto path = dir.file("constant_gain.pt");
  module.save(path);
  const auto subject = load({{"torchscript", path}});
  const auto input = at::rand({1, 3, 5, 4});
  const auto params = sample(*subject);
  torch::jit::setGraphExecutorOptimize(true);  // the thread's own setting, as a library's tests may have it
  for (int call = 0; call < 6; ++call) {
    const auto called = ops_called([&] { (void)execute(*subject, input, params, c10::Device(c10::kCPU)); });
    EXPECT_TRUE(called.count("aten::full")) << "call " << call << " ran " << called.size() << " op(s)";
  }
  EXPECT_TRUE(torch::jit::getGraphExecutorOptimize());
}

TEST(TorchScriptSubject, FaultyFixturesFailAndCleanOnesPassInTheRunner) {
  const json suite = {{"cases",
                       {{{"name", "unregistered"}, {"subject", {{"torchscript", fixture("gain_unregistered")}}}},
                        {{"name", "clean"}, {"subject", {{"torchscript", fixture("gain_clean")}}}}}}};
  const auto rec = testing::run_suite(suite, "cpu,meta");
  int failed = 0, passed = 0;
  for (const auto& r : rec.results) {
    if (r.case_name == "unregistered") {
      EXPECT_EQ(r.status, Status::kFail) << r.id;
      ++failed;
    } else {
      EXPECT_EQ(r.status, Status::kPass) << r.id << ": " << r.message;
      ++passed;
    }
  }
  EXPECT_EQ(failed, 2);
  EXPECT_EQ(passed, 2);
}

TEST(InterpreterErrors, TheLastErrorLineAndTheInnermostSourceAreKept) {
  const std::string text =
      "The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript (most recent call last):\n"
      "  File \"tools/m.py\", line 16, in forward\n"
      "    return x * helper(x)\n"
      "  File \"tools/m.py\", line 9, in helper\n"
      "    return torch.arange(3) * x\n"
      "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
      "meta and cpu!\n";
  const auto e = classify_message(text);
  EXPECT_EQ(e.kind, FailureKind::kDeviceMismatch);
  EXPECT_EQ(e.source, "tools/m.py:9");
  EXPECT_EQ(e.message.rfind("Expected all tensors to be on the same device", 0), 0u) << e.message;
  EXPECT_NE(e.message.find("(TorchScript, tools/m.py:9)"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace devparity
