// Tracing overhead: resize and blur on 1x3x512x512, float32 and uint8, with
// and without the placement tracer around apply() (as the runner runs them).

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
    if (kTraced) tracer = std::make_unique<Tracer>(x.device());
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

}  // namespace
}  // namespace devparity::bench
