// Tracing overhead: resize and blur on 1x3x512x512, float32 and uint8, and
// three of torchvision's scripted transforms from the real-world corpus
// (many small ops, host sampling, source lines), with and without the
// placement tracer around apply(), seeded with the input as the runner does.

#include "harness/base/json_reader.h"
#include "harness/device/device.h"
#include "harness/subject/state.h"
#include "harness/subject/subject_kind.h"
#include "harness/suite/inputs.h"
#include "harness/trace/replayed_draws.h"
#include "harness/trace/tracer.h"
#include "tools/bench/bench_util.h"

namespace devparity::bench {
namespace {

const nlohmann::json kResize = {{"size", {384, 384}}, {"interpolation", "bilinear"}};
const nlohmann::json kBlur = {{"kernel_size", {5, 5}}, {"sigma", {1.5, 1.5}}};

template <bool kTraced>
void run(benchmark::State& state, const std::string& subject, const nlohmann::json& given,
         at::ScalarType dtype) {
  register_builtins();
  const auto x = image(512, 512, dtype);
  const Transform* t = TransformRegistry::global().find(subject);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const auto params = t->sample(given, x.sizes(), gen);
  int64_t ops = 0;
  for (auto _ : state) {
    std::unique_ptr<Tracer> tracer;
    if (kTraced) tracer = std::make_unique<Tracer>(x.device(), TraceSeeds{{x}, {}, {}, {}, {}});
    auto y = t->apply(x, params);
    benchmark::DoNotOptimize(y.data_ptr());
    if (tracer) ops = tracer->ops_traced();
  }
  state.counters["traced_ops"] = static_cast<double>(ops);
}

#define DP_TRACE_PAIR(name, subject, params, dtype)                                             \
  void BM_trace_##name##_untraced(benchmark::State& s) { run<false>(s, subject, params, dtype); } \
  void BM_trace_##name##_traced(benchmark::State& s) { run<true>(s, subject, params, dtype); }    \
  BENCHMARK(BM_trace_##name##_untraced)->Unit(benchmark::kMillisecond);                          \
  BENCHMARK(BM_trace_##name##_traced)->Unit(benchmark::kMillisecond);

DP_TRACE_PAIR(resize_float32, "resize", kResize, at::kFloat)
DP_TRACE_PAIR(resize_uint8, "resize", kResize, at::kByte)
DP_TRACE_PAIR(blur_float32, "gaussian_blur2d", kBlur, at::kFloat)
DP_TRACE_PAIR(blur_uint8, "gaussian_blur2d", kBlur, at::kByte)

// Per-op cost: many ops on tiny tensors, as a library's parameter code runs
// them (Kornia's augmentations: matrices of a batch of 2, casts, indexing,
// a random draw, a composite): the tracer's callbacks dominate the time.
template <bool kTraced>
void run_small_ops(benchmark::State& state, const std::string& device_name) {
  register_builtins();
  const auto target = resolve_device(device_name, DeviceInventory::probe());
  if (!target.available()) {
    state.SkipWithError(target.absent_reason.c_str());
    return;
  }
  const auto options = at::TensorOptions().device(*target.device);
  const auto x = at::rand({2, 3, 3}).to(*target.device);
  const auto body = [&] {
    auto m = at::matmul(x, at::eye(3, options).expand({2, 3, 3}));
    m = (m + 1) * x - 0.5;
    auto row = m.select(1, 0);
    auto both = at::stack({row, row}).to(at::kDouble).to(at::kFloat);
    auto mask = both > 0.5;
    auto kept = at::where(mask, both, at::zeros_like(both));
    auto joined = at::cat({kept, kept.flip(0)}).clamp(0, 1).sqrt();
    auto draw = at::empty({2}, options).uniform_(0, 1);
    return (joined.sum() + draw.mean()) / at::inverse(m + at::eye(3, options) * 3).abs().sum();
  };
  body();
  int64_t ops = 0;
  for (auto _ : state) {
    std::unique_ptr<Tracer> tracer;
    if (kTraced) tracer = std::make_unique<Tracer>(*target.device, TraceSeeds{{x}, {}, {}, {}, {}});
    auto y = body();
    benchmark::DoNotOptimize(y.data_ptr());
    if (tracer) ops = tracer->ops_traced();
  }
  state.counters["traced_ops"] = static_cast<double>(ops);
}

#define DP_SMALL_OPS_PAIR(name, device)                                                              \
  void BM_trace_small_ops_##name##_untraced(benchmark::State& s) { run_small_ops<false>(s, device); } \
  void BM_trace_small_ops_##name##_traced(benchmark::State& s) { run_small_ops<true>(s, device); }    \
  BENCHMARK(BM_trace_small_ops_##name##_untraced)->Unit(benchmark::kMicrosecond);                    \
  BENCHMARK(BM_trace_small_ops_##name##_traced)->Unit(benchmark::kMicrosecond);

DP_SMALL_OPS_PAIR(cpu, "cpu")
DP_SMALL_OPS_PAIR(vdev, "vdev:1")

// Per-op cost against the trace's length: a Python cpu row records every output
// (Note [Neutral data]), as gradcheck's ~10^5 small ops make them; 10x the ops in
// one trace (4 a step) must cost 10x, not more (Note [Records of freed storages]).
void BM_trace_long_cpu_row(benchmark::State& state) {
  register_builtins();
  const auto x = at::rand({3, 16, 16});
  TraceSeeds seeds;
  seeds.positive_device_data = true;
  int64_t ops = 0;
  for (auto _ : state) {
    Tracer tracer(x.device(), seeds);
    tracer.mark_device(x);
    for (int64_t i = 0; i < state.range(0); ++i) {
      const auto y = x.add(x);  // outputs of three sizes, as gradcheck's ops make them
      benchmark::DoNotOptimize(at::cat({y.sum(0), y[0]}).data_ptr());
    }
    ops += tracer.ops_traced();
  }
  state.SetItemsProcessed(ops);
}
BENCHMARK(BM_trace_long_cpu_row)->Arg(2500)->Arg(25000)->Unit(benchmark::kMillisecond);

// A scripted torchvision transform, through the TorchScript subject kind.
template <bool kTraced>
void run_torchvision(benchmark::State& state, const std::string& name) {
  register_builtins();
  const nlohmann::json declaration = {
      {"torchscript", std::string(DEVPARITY_SOURCE_DIR) + "/tests/realworld/torchvision/" + name + ".pt"}};
  ObjectReader reader(declaration);
  const auto subject = SubjectKindRegistry::global().find("torchscript")->load(reader, declaration_context(""));
  const auto* stateful = dynamic_cast<const StatefulTransform*>(subject.get());
  const auto x = image(512, 512, at::kFloat);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const auto params = subject->sample(nlohmann::json::object(), x.sizes(), gen);
  int64_t ops = 0;
  for (auto _ : state) {
    auto st = stateful->make_state(params, x.scalar_type());
    std::unique_ptr<Tracer> tracer;
    if (kTraced) {
      TraceSeeds seeds;
      seeds.device_data.push_back(x);
      st->seed_trace(seeds);
      tracer = std::make_unique<Tracer>(x.device(), std::move(seeds));
    }
    const ReplayedDraws draws(1, x.device());
    auto y = stateful->apply(x, params, *st);
    benchmark::DoNotOptimize(y.data_ptr());
    if (tracer) ops = tracer->ops_traced();
  }
  state.counters["traced_ops"] = static_cast<double>(ops);
}

#define DP_TORCHVISION_PAIR(name)                                                                     \
  void BM_trace_torchvision_##name##_untraced(benchmark::State& s) { run_torchvision<false>(s, #name); } \
  void BM_trace_torchvision_##name##_traced(benchmark::State& s) { run_torchvision<true>(s, #name); }    \
  BENCHMARK(BM_trace_torchvision_##name##_untraced)->Unit(benchmark::kMillisecond);                   \
  BENCHMARK(BM_trace_torchvision_##name##_traced)->Unit(benchmark::kMillisecond);

DP_TORCHVISION_PAIR(color_jitter)
DP_TORCHVISION_PAIR(gaussian_blur)
DP_TORCHVISION_PAIR(random_perspective)

}  // namespace
}  // namespace devparity::bench
