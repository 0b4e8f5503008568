#include "harness/trace/tracer.h"

#include "harness/builtins.h"
#include "harness/core/vdev.h"
#include "harness/trace/scope.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

namespace devparity {
namespace {

const c10::Device kCpu(c10::DeviceType::CPU);
const c10::Device kMeta(c10::DeviceType::Meta);
const c10::Device kCuda0(c10::DeviceType::CUDA, 0);
const c10::Device kCuda1(c10::DeviceType::CUDA, 1);
const c10::Device kCudaNoIndex(c10::DeviceType::CUDA);

TensorInfo on(const c10::Device& d, std::vector<int64_t> shape = {2, 3}) {
  return {d, std::move(shape), c10::ScalarType::Float};
}

OpCall factory(const std::string& op, std::optional<c10::Device> device) {
  OpCall call;
  call.op = op;
  call.has_device_argument = true;
  call.device = device;
  call.factory = true;
  return call;
}

std::vector<std::string> kinds(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.kind + (f.severity == Severity::kWarning ? "/w" : ""));
  return out;
}

using Kinds = std::vector<std::string>;

TEST(ClassifyOpTest, FactoriesWithoutADeviceOnEveryTarget) {
  for (const auto& target : {kCpu, kMeta, kCuda1}) {
    const auto f = classify_op(factory("aten::arange.start", std::nullopt), target);
    EXPECT_EQ(kinds(f), Kinds{"implicit_device_factory"}) << target;
    EXPECT_EQ(f[0].op, "aten::arange.start");
  }
}

TEST(ClassifyOpTest, DeviceTypeWithoutIndexLandsOnTheCurrentDevice) {
  EXPECT_EQ(kinds(classify_op(factory("aten::zeros", kCudaNoIndex), kCuda1)),
            Kinds{"device_without_index"});
  // Harmless when the target itself has no index (cpu, meta).
  EXPECT_TRUE(classify_op(factory("aten::zeros", kCpu), kCpu).empty());
  EXPECT_TRUE(classify_op(factory("aten::zeros", kCuda1), kCuda1).empty());
}

TEST(ClassifyOpTest, ExplicitForeignDevices) {
  const auto hard_coded = classify_op(factory("aten::ones", kCuda0), kCuda1);
  EXPECT_EQ(kinds(hard_coded), Kinds{"foreign_device_target"});
  EXPECT_EQ(hard_coded[0].device, "cuda:0");
  // Explicit host work is a warning.
  EXPECT_EQ(kinds(classify_op(factory("aten::empty.memory_format", kCpu), kMeta)),
            Kinds{"foreign_device_target/w"});
}

TEST(ClassifyOpTest, CopiesBetweenHostAndDevice) {
  OpCall to;
  to.op = "aten::to.dtype_layout";
  to.has_device_argument = true;
  to.tensors = {on(kCuda1)};
  to.device = kCpu;
  EXPECT_EQ(kinds(classify_op(to, kCuda1)), Kinds{"host_sync/w"});
  to.tensors = {on(kCpu)};
  to.device = kCuda1;
  EXPECT_EQ(kinds(classify_op(to, kCuda1)), Kinds{"host_to_device_copy/w"});
  to.device = kCudaNoIndex;
  EXPECT_EQ(kinds(classify_op(to, kCuda1)), Kinds{"device_without_index"});
  to.device = kCuda0;
  EXPECT_EQ(kinds(classify_op(to, kCuda1)), Kinds{"foreign_device_target"});
  // A dtype cast is not a move.
  OpCall cast;
  cast.op = "aten::to.dtype";
  cast.tensors = {on(kCuda1)};
  EXPECT_TRUE(classify_op(cast, kCuda1).empty());
  // to(other): the destination is the other tensor's device.
  OpCall other;
  other.op = "aten::to.other";
  other.tensors = {on(kCpu), on(kCuda1)};
  EXPECT_EQ(kinds(classify_op(other, kCuda1)), Kinds{"host_to_device_copy/w"});
  // copy_(dst, src)
  OpCall copy;
  copy.op = "aten::copy_";
  copy.tensors = {on(kCuda1), on(kCpu)};
  EXPECT_EQ(kinds(classify_op(copy, kCuda1)), Kinds{"host_to_device_copy/w"});
  copy.tensors = {on(kCpu), on(kCuda1)};
  EXPECT_EQ(kinds(classify_op(copy, kCuda1)), Kinds{"host_sync/w"});
  // On the CPU a copy to the CPU is no sync.
  to.tensors = {on(kCpu)};
  to.device = kCpu;
  EXPECT_TRUE(classify_op(to, kCpu).empty());
}

TEST(ClassifyOpTest, ForeignInputsExceptCpuScalars) {
  OpCall add;
  add.op = "aten::add.Tensor";
  add.tensors = {on(kCuda1), on(kCpu, {})};
  EXPECT_TRUE(classify_op(add, kCuda1).empty()) << "0-dim CPU tensors are scalars";
  add.tensors = {on(kCuda1), on(kCpu, {3})};
  const auto f = classify_op(add, kCuda1);
  EXPECT_EQ(kinds(f), Kinds{"foreign_device_input"});
  EXPECT_EQ(f[0].device, "cpu");
  EXPECT_EQ(f[0].shape, std::vector<int64_t>{3});
  add.tensors = {on(kCuda1), on(kCuda0)};
  EXPECT_EQ(kinds(classify_op(add, kCuda1)), Kinds{"foreign_device_input"});
  add.tensors = {on(kCuda0, {})};  // a 0-dim tensor on another GPU is no scalar
  EXPECT_EQ(kinds(classify_op(add, kCuda1)), Kinds{"foreign_device_input"});
}

TEST(ClassifyOpTest, HostSyncs) {
  OpCall item;
  item.op = "aten::item";
  item.tensors = {on(kCuda1, {})};
  EXPECT_EQ(kinds(classify_op(item, kCuda1)), Kinds{"host_sync/w"});
  item.op = "aten::nonzero";
  item.tensors = {on(kCpu)};
  EXPECT_EQ(kinds(classify_op(item, kCpu)), Kinds{"host_sync/w"}) << "reported on the CPU too";
}

TEST(TracerTest, SeesTopLevelOpsWithScopes) {
  const auto x = at::ones({2, 3});
  std::vector<Finding> findings;
  int64_t ops = 0;
  {
    Tracer tracer(kCpu);
    {
      DEVPARITY_TRACE_SCOPE("outer");
      DEVPARITY_TRACE_SCOPE("inner");
      (void)(x + at::arange(3, at::TensorOptions().dtype(at::kFloat)));  // no device
    }
    (void)at::arange(3, x.options());  // explicit device: fine
    findings = tracer.findings();
    ops = tracer.ops_traced();
  }
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "implicit_device_factory");
  EXPECT_EQ(findings[0].op, "aten::arange");
  EXPECT_EQ(findings[0].scopes, (std::vector<std::string>{"outer", "inner"}));
  EXPECT_EQ(findings[0].describe(),
            "outer > inner: aten::arange with no device: the tensor lands on the default device "
            "(the CPU), whatever the input's device");
  // arange, add, arange: the empty/resize_ calls inside them are not counted.
  EXPECT_EQ(ops, 3);
}

TEST(TracerTest, ForeignInputOnMetaAndTheOpThatThrew) {
  const auto m = at::empty({2, 3}, at::TensorOptions().device(at::kMeta));
  const auto stray = at::ones({3});
  Tracer tracer(kMeta);
  try {
    DEVPARITY_TRACE_SCOPE("step");
    (void)(m * stray);
    FAIL() << "meta and cpu mixed without an error";
  } catch (const std::exception&) {
  }
  const auto findings = tracer.findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "foreign_device_input");
  EXPECT_EQ(findings[0].op, "aten::mul.Tensor");
  EXPECT_EQ(tracer.failed_op().op, "aten::mul.Tensor");
  EXPECT_EQ(tracer.failed_op().scopes, std::vector<std::string>{"step"});
}

TEST(TracerTest, RepeatedFindingsAreCounted) {
  const auto x = at::ones({4});
  Tracer tracer(kCpu);
  for (int i = 0; i < 3; ++i) (void)at::zeros({4});
  const auto findings = tracer.findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].count, 3);
  EXPECT_NE(findings[0].describe().find("(x3)"), std::string::npos);
}

TEST(TracerTest, OnePerThreadAndNothingAfterIt) {
  {
    Tracer tracer(kCpu);
    EXPECT_THROW(Tracer{kCpu}, std::logic_error);
  }
  Tracer next(kCpu);  // the first one is gone
  (void)at::ones({1});
  EXPECT_EQ(next.ops_traced(), 1);
}

TEST(TracerTest, SelfTestSeesInputs) { EXPECT_NO_THROW(Tracer::self_test()); }

TEST(TracerTest, ADeclaredHandOverTurnsHostTransfersIntoNotesOnly) {
  register_builtins();  // vdev:0
  if (vdev::device_count() < 1) GTEST_SKIP() << "this build has no virtual device";
  const auto dev = vdev::device(0);
  const auto x = at::ones({4}, at::TensorOptions().device(dev));
  auto severities = [](const std::vector<Finding>& findings) {
    std::map<std::string, std::string> out;
    for (const auto& f : findings) out[f.kind] = severity_name(f.severity);
    return out;
  };
  {
    Tracer tracer(dev);
    (void)x.to(at::kCPU);  // not declared: a warning
    EXPECT_EQ(severities(tracer.findings())["host_sync"], "warning");
  }
  Tracer tracer(dev);
  {
    DEVPARITY_HOST_HANDOVER();
    const auto host = x.to(at::kCPU);
    const auto buffer = at::empty({4}, at::TensorOptions().device(at::kCPU));
    (void)buffer.to(dev);
    (void)at::zeros({4});  // a device-less factory stays an error even here
  }
  const auto s = severities(tracer.findings());
  EXPECT_EQ(s.at("host_sync"), "note");
  EXPECT_EQ(s.at("foreign_device_target"), "note");
  EXPECT_EQ(s.at("host_to_device_copy"), "note");
  EXPECT_EQ(s.at("implicit_device_factory"), "error");
}

TEST(FindingTest, DeduplicationAndJson) {
  FindingSet set;
  Finding f;
  f.kind = "host_sync";
  f.severity = Severity::kWarning;
  f.op = "aten::item";
  f.scopes = {"a"};
  f.message = "m";
  set.add(f);
  set.add(f);
  f.scopes = {"b"};
  set.add(f);
  ASSERT_EQ(set.items().size(), 2u);
  EXPECT_EQ(set.items()[0].count, 2);
  const auto j = set.items()[0].to_json();
  EXPECT_EQ(j["severity"], "warning");
  EXPECT_EQ(j["scopes"], nlohmann::json({"a"}));
  EXPECT_EQ(j["count"], 2);
  EXPECT_FALSE(j.contains("shape"));
}

}  // namespace
}  // namespace devparity
