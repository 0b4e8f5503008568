#pragma once
// Shared set-up for the benchmarks: registered subjects with sampled params.

#include "harness/builtins.h"
#include "harness/subject/execution.h"
#include "harness/subject/transform_registry.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace devparity::bench {

/// A batch x 3 x H x W image of the dtype, seeded.
inline at::Tensor image(int64_t height, int64_t width, at::ScalarType dtype, int64_t batch = 1) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const auto x = at::rand({batch, 3, height, width}, gen);
  return dtype == at::kByte ? (x * 255).round().to(at::kByte) : x.to(dtype);
}

/// Runs `subject` on `x` with `given` params once per iteration.
inline void run_subject(benchmark::State& state, const std::string& subject, const at::Tensor& x,
                        const nlohmann::json& given) {
  register_builtins();
  const Transform* t = TransformRegistry::global().find(subject);
  if (t == nullptr) throw std::runtime_error("no subject " + subject);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const auto params = t->sample(given, x.sizes(), gen);
  ExecuteOptions options;
  options.copy_input = false;
  options.keep_on_device = true;
  // One call before the clock: LibTorch's first use of a kernel (dispatch
  // tables, thread pool, first-touch pages) is not the transform's cost.
  execute_or_throw(*t, x, params, x.device(), options);
  for (auto _ : state) {
    auto y = execute_or_throw(*t, x, params, x.device(), options);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

}  // namespace devparity::bench
