// Tracing overhead: resize and blur on 1x3x512x512, float32 and uint8, and
// three of torchvision's scripted transforms from the real-world corpus
// (many small ops, host sampling, source lines), with and without the
// placement tracer around apply(), seeded with the input as the runner does.

#include "harness/base/json_reader.h"
#include "harness/subject/state.h"
#include "harness/subject/subject_kind.h"
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

// A scripted torchvision transform, through the TorchScript subject kind.
template <bool kTraced>
void run_torchvision(benchmark::State& state, const std::string& name) {
  register_builtins();
  const nlohmann::json declaration = {
      {"torchscript", std::string(DEVPARITY_SOURCE_DIR) + "/tests/realworld/torchvision/" + name + ".pt"}};
  ObjectReader reader(declaration);
  const auto subject = SubjectKindRegistry::global().find("torchscript")->load(reader, "");
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
