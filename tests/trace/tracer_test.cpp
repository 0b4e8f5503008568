#include "harness/trace/tracer.h"

#include "harness/builtins.h"
#include "harness/vdev/vdev.h"
#include "harness/trace/scope.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <set>

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

TensorInfo host_data(std::vector<int64_t> shape = {2, 3}) {
  auto t = on(kCpu, std::move(shape));
  t.host_data = true;
  return t;
}

TensorInfo argument(TensorInfo t, const char* name) {
  t.argument = name;
  return t;
}

TEST(ClassifyOpTest, FactoriesWithoutADeviceAreHostWork) {
  // Note [Device data and host data]: what they make is judged where it
  // meets device data, not where it is made.
  for (const auto& target : {kCpu, kMeta, kCuda1}) {
    EXPECT_TRUE(classify_op(factory("aten::arange.start", std::nullopt), target).empty()) << target;
    EXPECT_TRUE(classify_op(factory("aten::empty.memory_format", kCpu), target).empty()) << target;
  }
}

TEST(ClassifyOpTest, DeviceTypeWithoutIndexLandsOnTheCurrentDevice) {
  EXPECT_EQ(kinds(classify_op(factory("aten::zeros", kCudaNoIndex), kCuda1)),
            Kinds{"device_without_index"});
  // Harmless when the target itself has no index (cpu, meta).
  EXPECT_TRUE(classify_op(factory("aten::zeros", kCpu), kCpu).empty());
  EXPECT_TRUE(classify_op(factory("aten::zeros", kCuda1), kCuda1).empty());
}

TEST(ClassifyOpTest, DeviceTypeWithoutIndexIsJudgedWhereItLands) {
  // Note [Current device]: inside a guard that selects the target, the index-less device is right.
  auto zeros = factory("aten::zeros", kCudaNoIndex);
  zeros.current = kCuda1;
  EXPECT_TRUE(classify_op(zeros, kCuda1).empty());
  zeros.current = kCuda0;
  const auto wrong = classify_op(zeros, kCuda1);
  EXPECT_EQ(kinds(wrong), Kinds{"device_without_index"});
  EXPECT_NE(wrong[0].message.find("lands on the current device, cuda:0, not cuda:1"), std::string::npos)
      << wrong[0].message;
  // An inferred target is a guess: a factory lands where the code put the current device, and
  // a move is judged against its own data.
  zeros.target_inferred = true;
  EXPECT_TRUE(classify_op(zeros, kCuda1).empty());
  OpCall to;
  to.op = "aten::to.dtype_layout";
  to.has_device_argument = true;
  to.device = kCudaNoIndex;
  to.current = kCuda0;
  to.target_inferred = true;
  to.tensors = {on(kCuda1)};
  EXPECT_EQ(kinds(classify_op(to, kCuda1)), Kinds{"device_without_index"});
  to.tensors = {on(kCuda0)};
  EXPECT_TRUE(classify_op(to, kCuda1).empty());
  // Two devices used on purpose: an explicit index is the code's own choice.
  auto ones = factory("aten::ones", kCuda0);
  ones.target_inferred = true;
  EXPECT_TRUE(classify_op(ones, kCuda1).empty());
}

TEST(ClassifyOpTest, ExplicitForeignDevices) {
  const auto hard_coded = classify_op(factory("aten::ones", kCuda0), kCuda1);
  EXPECT_EQ(kinds(hard_coded), Kinds{"foreign_device_target"});
  EXPECT_EQ(hard_coded[0].device, "cuda:0");
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
  // On the CPU a copy of device data to the CPU is no sync.
  to.tensors = {on(kCpu)};
  to.device = kCpu;
  EXPECT_TRUE(classify_op(to, kCpu).empty());
}

TEST(ClassifyOpTest, MixedDevicesFollowCudasRuleForTheOp) {
  OpCall add;
  add.op = "aten::add.Tensor";
  add.tensors = {on(kCuda1), on(kCpu, {})};
  EXPECT_TRUE(classify_op(add, kCuda1).empty()) << "a CPU 0-dim input is a scalar to TensorIterator";
  add.tensors = {on(kCuda1), on(kCpu, {3})};
  const auto f = classify_op(add, kCuda1);
  EXPECT_EQ(kinds(f), Kinds{"foreign_device_input"});
  EXPECT_EQ(f[0].device, "cpu");
  EXPECT_EQ(f[0].shape, std::vector<int64_t>{3});
  EXPECT_NE(f[0].message.find("cuda:1 and cpu!"), std::string::npos) << f[0].message;
  add.tensors = {on(kCuda1), on(kCuda0)};
  EXPECT_EQ(kinds(classify_op(add, kCuda1)), Kinds{"foreign_device_input"});
  add.tensors = {on(kCuda1), on(kCuda0, {})};  // a 0-dim tensor on another GPU is no scalar
  EXPECT_EQ(kinds(classify_op(add, kCuda1)), Kinds{"foreign_device_input"});
  // All on the host: host work, whatever the target.
  add.tensors = {on(kCpu), on(kCpu)};
  EXPECT_TRUE(classify_op(add, kCuda1).empty());

  // Generated checks take no scalars (clamp.Tensor), and name the argument.
  OpCall clamp;
  clamp.op = "aten::clamp.Tensor";
  clamp.tensors = {argument(on(kCuda1), "self"), argument(on(kCpu, {}), "max")};
  const auto c = classify_op(clamp, kCuda1);
  EXPECT_EQ(kinds(c), Kinds{"foreign_device_input"});
  EXPECT_NE(c[0].message.find("argument max"), std::string::npos) << c[0].message;

  // Indexing with host indices is legal (ATen moves them): a copy per call.
  OpCall index;
  index.op = "aten::index.Tensor";
  index.tensors = {argument(on(kCuda1), "self"), argument(on(kCpu, {2}), "indices")};
  EXPECT_EQ(kinds(classify_op(index, kCuda1)), Kinds{"host_to_device_copy/w"});
  index.tensors = {argument(on(kCpu), "self"), argument(on(kCuda1, {2}), "indices")};
  EXPECT_EQ(kinds(classify_op(index, kCuda1)), Kinds{"foreign_device_input"}) << "device indices into host data";

  // A masked_fill with a host mask is refused.
  OpCall fill;
  fill.op = "aten::masked_fill_.Scalar";
  fill.tensors = {argument(on(kCuda1), "self"), argument(on(kCpu), "mask")};
  const auto m = classify_op(fill, kCuda1);
  EXPECT_EQ(kinds(m), Kinds{"foreign_device_input"});
  EXPECT_NE(m[0].message.find("expected self and mask to be on the same device"), std::string::npos);
}

TEST(ClassifyOpTest, OnTheCpuHostDataIsToldByItsOrigin) {
  // The cpu row: device data and host data share the CPU.
  OpCall mul;
  mul.op = "aten::mul.Tensor";
  mul.tensors = {on(kCpu), host_data({3})};
  mul.tensors[1].origin = "made by aten::arange with no device at k.py:3";
  const auto f = classify_op(mul, kCpu);
  EXPECT_EQ(kinds(f), Kinds{"foreign_device_input"});
  EXPECT_NE(f[0].message.find("made by aten::arange with no device at k.py:3"), std::string::npos) << f[0].message;
  mul.tensors = {on(kCpu), host_data({})};
  EXPECT_TRUE(classify_op(mul, kCpu).empty()) << "a host scalar";
  mul.tensors = {host_data(), host_data()};
  EXPECT_TRUE(classify_op(mul, kCpu).empty()) << "host work";
  // Moving host data to the target is a copy per call; device data to the host a sync.
  OpCall to;
  to.op = "aten::to.device";
  to.has_device_argument = true;
  to.device = kCpu;
  to.tensors = {host_data()};
  EXPECT_EQ(kinds(classify_op(to, kCpu)), Kinds{"host_to_device_copy/w"});
  OpCall item;
  item.op = "aten::item";
  item.tensors = {host_data({})};
  EXPECT_TRUE(classify_op(item, kCpu).empty()) << "reading a host draw is no sync";
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

TraceSeeds device_data(const at::Tensor& x) {
  TraceSeeds seeds;
  seeds.device_data.push_back(x);
  return seeds;
}

std::vector<std::string> kinds_of(const std::vector<Finding>& findings) { return kinds(findings); }

TEST(TracerTest, SeesTopLevelOpsWithScopes) {
  const auto x = at::ones({2, 3});
  std::vector<Finding> findings;
  int64_t ops = 0;
  {
    Tracer tracer(kCpu, device_data(x));
    {
      DEVPARITY_TRACE_SCOPE("outer");
      DEVPARITY_TRACE_SCOPE("inner");
      (void)(x + at::arange(3, at::TensorOptions().dtype(at::kFloat)));  // no device
    }
    (void)(x + at::arange(3, x.options()));  // the input's device: fine
    findings = tracer.findings();
    ops = tracer.ops_traced();
  }
  // The maker first, then the op where its tensor met the input.
  ASSERT_EQ(kinds_of(findings), (Kinds{"implicit_device_factory", "foreign_device_input"}));
  EXPECT_EQ(findings[0].op, "aten::arange");
  EXPECT_EQ(findings[0].scopes, (std::vector<std::string>{"outer", "inner"}));
  EXPECT_EQ(findings[0].describe(),
            "outer > inner: aten::arange with no device: the tensor lands on the default device "
            "(the CPU), whatever the input's device, and meets device data in aten::add.Tensor");
  EXPECT_EQ(findings[1].op, "aten::add.Tensor");
  // arange, add, arange, add: the empty/resize_ calls inside them are not counted.
  EXPECT_EQ(ops, 4);
}

TEST(TracerTest, HostSamplingIsNoFinding) {
  // torchvision's random transforms draw on the host, read the numbers,
  // and use them as Python numbers.
  auto sample = [](const at::Tensor& x) {
    const double angle = at::empty({1}).uniform_(-30.0, 30.0).item<double>();
    const auto pick = at::randint(0, 4, {1}).item<int64_t>();
    const auto weights = at::tensor(std::vector<double>{0.299, 0.587, 0.114});
    const double w = weights[pick % 3].item<double>();
    return x * (angle * w);
  };
  const auto x = at::rand({1, 3, 4, 4});
  {
    Tracer tracer(kCpu, device_data(x));
    (void)sample(x);
    EXPECT_TRUE(tracer.findings().empty()) << tracer.findings()[0].describe();
    EXPECT_TRUE(tracer.device_draws().empty());
  }
  const auto m = x.to(kMeta);
  Tracer tracer(kMeta, device_data(m));
  (void)sample(m);
  EXPECT_TRUE(tracer.findings().empty()) << tracer.findings()[0].describe();
}

TEST(TracerTest, KeptStateCopiedOntoTheTargetIsNamedAtItsAssignment) {
  // Note [Kept state]: the move in forward hides the bug from the op that uses the table.
  const auto m = at::rand({1, 3, 2, 2}).to(kMeta);
  auto seeds = device_data(m);
  const auto table = at::ones({1, 3, 1, 1});
  seeds.kept_state = {{"Jitter.table", table}};
  seeds.kept_made_at = {{"Jitter.table", "jitter.py:12"}};
  std::vector<Finding> found;
  {
    Tracer tracer(kMeta, seeds);
    (void)(m * table.to(kMeta));
    found = tracer.findings();
  }
  // Copied from the host: right on every machine, a cost (Note [Kept state]).
  ASSERT_EQ(kinds_of(found), (Kinds{"unregistered_tensor_state/w"}));
  EXPECT_EQ(found[0].source, "jitter.py:12");
  EXPECT_NE(found[0].message.find("is copied to meta by aten::to"), std::string::npos) << found[0].message;
  // A registered table needs no copy: no finding.
  Tracer clean(kMeta, device_data(m));
  (void)(m * at::ones({1, 3, 1, 1}, m.options()));
  EXPECT_TRUE(clean.findings().empty());
}

TEST(TracerTest, KeptStateCopiedFromAnotherAcceleratorIsAnError) {
  // Kornia #2791: the table made on gpu 0 and copied to gpu 1 on every call gave wrong values.
  register_builtins();
  if (vdev::device_count() < 2) GTEST_SKIP() << "this build has no virtual device";
  const auto x = at::rand({1, 3, 2, 2}).to(vdev::device(1));
  auto seeds = device_data(x);
  const auto table = at::ones({1, 3, 1, 1}).to(vdev::device(0));
  seeds.kept_state = {{"Jitter.table", table}};
  seeds.kept_made_at = {{"Jitter.table", "jitter.py:12"}};
  std::vector<Finding> found;
  {
    Tracer tracer(vdev::device(1), seeds);
    (void)(x * table.to(vdev::device(1)));
    found = tracer.findings();
  }
  ASSERT_EQ(kinds_of(found), (Kinds{"unregistered_tensor_state"}));
  EXPECT_EQ(found[0].source, "jitter.py:12");
  EXPECT_EQ(found[0].device, "vdev:0");
}

TEST(TracerTest, OpsOnDeviceDataAloneAreStillJudgedWhereTheyMust) {
  // Note [The tracer's fast path]: device data alone skips classification,
  // unless the op waits, names a device, moves, or is called by one that waits.
  register_builtins();
  if (vdev::device_count() < 2) GTEST_SKIP() << "this build has no virtual device";
  const auto dev = vdev::device(1);
  const auto x = at::rand({2, 3}).to(dev);
  Tracer tracer(dev, device_data(x));
  (void)((x * x + 1).relu().sum(0));  // nothing to say
  EXPECT_TRUE(tracer.findings().empty()) << tracer.findings()[0].describe();
  (void)x.sum().item<float>();
  (void)at::allclose(x, x);  // a composite that waits, at its callees
  (void)at::zeros({2}, at::TensorOptions().device(vdev::device(0)));
  (void)at::ones_like(x, at::TensorOptions().device(vdev::device(0)));  // device data in, a device named
  (void)x.to(at::kCPU);
  std::set<std::string> seen;
  for (const auto& f : tracer.findings()) seen.insert(f.kind + " " + f.op);
  EXPECT_EQ(seen, (std::set<std::string>{"host_sync aten::item", "host_sync aten::allclose",
                                         "foreign_device_target aten::zeros", "foreign_device_target aten::ones_like",
                                         "host_sync aten::to.dtype_layout"}));
}

// The findings of `body` on a Python cpu row (TraceSeeds::positive_device_data), given device
// data `x` and host data `ramp` the front end marked as a device-less factory's at ramp.py:4.
std::vector<Finding> on_a_python_cpu_row(
    const std::function<void(Tracer&, const at::Tensor& x, const at::Tensor& ramp)>& body) {
  const auto x = at::rand({2, 3});
  const auto ramp = at::arange(3, at::kFloat).view({1, 3}).expand({2, 3}).contiguous();
  TraceSeeds seeds;
  seeds.positive_device_data = true;
  Tracer tracer(kCpu, seeds);
  tracer.mark_device(x);
  tracer.mark_host(ramp, Tracer::HostMark::kDefaultFactory, "torch.arange", "ramp.py:4");
  body(tracer, x, ramp);
  return tracer.findings();
}

TEST(TracerTest, HostDataTheFrontEndMarksMeetsDeviceDataOnTheCpu) {
  // Python's device-less factories arrive with the CPU named (Note [Host data on the cpu row]).
  const auto found = on_a_python_cpu_row([](Tracer&, const at::Tensor& x, const at::Tensor& ramp) {
    const auto neutral = at::ones({2, 3}, at::TensorOptions().device(at::kCPU));  // as Python makes it: neither
    (void)(x + neutral);
    (void)(neutral + ramp);
    (void)(x + ramp);
  });
  EXPECT_EQ(kinds_of(found), (Kinds{"implicit_device_factory", "foreign_device_input"}));
  EXPECT_EQ(found[0].source, "ramp.py:4");
  EXPECT_EQ(found[1].made_at, "ramp.py:4");
}

TEST(TracerTest, RecordsOfFreedStoragesAreDroppedAndTheLiveOnesKept) {
  // A Python cpu row records every output (Note [Neutral data]); a long test (gradcheck) frees
  // most of them at once (Note [Records of freed storages]).
  const auto found = on_a_python_cpu_row([](Tracer& tracer, const at::Tensor& x, const at::Tensor& ramp) {
    auto kept = x * 2;  // device data that stays alive through every sweep
    for (int i = 0; i < 40000; ++i) (void)((x + i) * 2);
    EXPECT_LT(tracer.records(), 20000u) << "the records of freed storages stayed";
    (void)(kept + x);  // device data with device data: nothing to say
    (void)(x + ramp);  // host data made before the sweeps still meets device data as host data
  });
  EXPECT_EQ(kinds_of(found), (Kinds{"implicit_device_factory", "foreign_device_input"}));
  EXPECT_EQ(found[1].made_at, "ramp.py:4");
}

TEST(TracerTest, ReturnedHostDataIsAWrongDeviceOutputOnTheCpu) {
  const auto x = at::rand({2, 2});
  {
    Tracer tracer(kCpu, device_data(x));
    const auto y = at::zeros({2, 2});  // made on the host, never derived from x
    tracer.returned(y);
    EXPECT_EQ(kinds_of(tracer.findings()), (Kinds{"implicit_device_factory", "wrong_device_output"}));
    EXPECT_NE(tracer.findings()[0].message.find("the subject returns it"), std::string::npos);
  }
  Tracer clean(kCpu, device_data(x));
  clean.returned(at::zeros_like(x) + x);
  EXPECT_TRUE(clean.findings().empty());
}

TEST(TracerTest, DrawsOnTheDeviceAreReported) {
  const auto x = at::rand({2, 2});
  Tracer tracer(kCpu, device_data(x));
  (void)(x + at::rand({2, 2}, x.options()));  // made on the target: its generator
  (void)at::rand({1}).item<double>();          // a host draw
  const auto draws = tracer.device_draws();
  ASSERT_EQ(draws.size(), 1u);
  EXPECT_EQ(draws[0].op, "aten::rand");
}

TEST(TracerTest, CompositesAreJudgedWhereTheirCalleesCheck) {
  const auto x = at::rand({2, 3});
  Tracer tracer(kCpu, device_data(x));
  (void)at::matmul(x, at::ones({3, 2}));  // matmul checks nothing; its mm does
  const auto findings = tracer.findings();
  ASSERT_FALSE(findings.empty());
  const auto& f = findings.back();
  EXPECT_EQ(f.kind, "foreign_device_input");
  EXPECT_EQ(f.op, "aten::matmul");
  EXPECT_NE(f.message.find("aten::mm"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("argument mat2"), std::string::npos) << f.message;
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
  Tracer tracer(kCpu, device_data(x));
  for (int i = 0; i < 3; ++i) (void)(x + at::zeros({4}));
  const auto findings = tracer.findings();
  ASSERT_EQ(findings.size(), 2u);
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

// The twin: a probe whose inputs the callbacks never see (a factory has
// none) fails as a build with the wrong RecordFunction layout does.
TEST(TracerTest, SelfTestFailsWhenNoInputIsSeen) {
  try {
    Tracer::self_test([] { (void)at::empty({2}); });
    ADD_FAILURE() << "a probe with no inputs passed the self-test";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("-DNDEBUG"), std::string::npos) << e.what();
  }
}

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
  Tracer tracer(dev, device_data(x));
  {
    DEVPARITY_HOST_HANDOVER();
    const auto host = x.to(at::kCPU);
    const auto buffer = at::empty({4}, at::TensorOptions().device(at::kCPU));
    (void)buffer.to(dev);
    try {
      (void)(x + at::zeros({4}));  // a device-less factory meeting device data stays an error even here
    } catch (const std::exception&) {
    }
  }
  const auto s = severities(tracer.findings());
  EXPECT_EQ(s.at("host_sync"), "note");
  EXPECT_EQ(s.count("foreign_device_target"), 0u) << "a host buffer is host work";
  EXPECT_EQ(s.at("host_to_device_copy"), "note");
  EXPECT_EQ(s.at("implicit_device_factory"), "error");
  EXPECT_EQ(s.at("foreign_device_input"), "error");
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
