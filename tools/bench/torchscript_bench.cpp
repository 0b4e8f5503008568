// TorchScript subjects: what auditing a scripted module costs over calling it.
// A per-call deep copy of the module with its state moved (what the runner
// does for every trial) and the tracer, on 1x3x512x512 float32, against the
// module's own forward.

#include "harness/base/json_reader.h"
#include "harness/subject/subject_kind.h"
#include "harness/suite/inputs.h"
#include "harness/trace/tracer.h"
#include "tools/bench/bench_util.h"

#include <torch/csrc/jit/serialization/import.h>

namespace devparity::bench {
namespace {

const std::string kModule = std::string(DEVPARITY_SOURCE_DIR) + "/tests/fixtures/torchscript/gain_clean.pt";

void BM_torchscript_gain_module(benchmark::State& state) {
  register_builtins();  // the same executor settings as an audit
  auto module = torch::jit::load(kModule);
  const auto x = image(512, 512, at::kFloat);
  for (auto _ : state) {
    auto y = module.forward({x}).toTensor();
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

template <bool kTraced>
void run_subject_of(benchmark::State& state) {
  register_builtins();
  const nlohmann::json declaration = {{"torchscript", kModule}};
  ObjectReader reader(declaration);
  const auto subject = SubjectKindRegistry::global().find("torchscript")->load(reader, declaration_context(""));
  const auto x = image(512, 512, at::kFloat);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const auto params = subject->sample(nlohmann::json::object(), x.sizes(), gen);
  for (auto _ : state) {
    std::unique_ptr<Tracer> tracer;
    if (kTraced) tracer = std::make_unique<Tracer>(x.device());
    auto y = subject->apply(x, params);  // deep copy, state moved, then forward
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void BM_torchscript_gain_subject(benchmark::State& state) { run_subject_of<false>(state); }
void BM_torchscript_gain_subject_traced(benchmark::State& state) { run_subject_of<true>(state); }

BENCHMARK(BM_torchscript_gain_module)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torchscript_gain_subject)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torchscript_gain_subject_traced)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace devparity::bench
