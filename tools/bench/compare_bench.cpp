// compare_tensors, which every parity and gradient check runs: on a 1080p frame (a GPU audit's
// size) identical, slightly off everywhere within the tolerance, and off beyond it (every
// statistic and the mismatch pattern computed); and on the default suite's 1x3x17x11 image,
// where its fixed cost is what a trial pays.

#include "harness/base/compare.h"
#include "harness/base/tolerance.h"
#include "tools/bench/bench_util.h"

namespace devparity::bench {
namespace {

void compare(benchmark::State& state, const at::Tensor& reference, const at::Tensor& output) {
  const auto tol = default_tolerance(reference.scalar_type());
  for (auto _ : state) {
    auto stats = compare_tensors(reference, output, tol);
    benchmark::DoNotOptimize(stats.max_abs);
  }
  state.SetItemsProcessed(state.iterations() * reference.numel());
}

void BM_compare_1080p_identical(benchmark::State& state) {
  const auto x = image(1080, 1920, at::kFloat);
  compare(state, x, x.clone());
}

void BM_compare_1080p_within(benchmark::State& state) {
  const auto x = image(1080, 1920, at::kFloat);
  compare(state, x, x * (1 + 1e-7));
}

void BM_compare_1080p_beyond(benchmark::State& state) {
  const auto x = image(1080, 1920, at::kFloat);
  compare(state, x, x + 1e-3);
}

void BM_compare_1080p_uint8_off_by_one(benchmark::State& state) {
  const auto x = image(1080, 1920, at::kByte);
  compare(state, x, (x.to(at::kInt) + 1).clamp(0, 255).to(at::kByte));
}

void BM_compare_default_suite_image(benchmark::State& state) {
  const auto x = image(17, 11, at::kFloat);
  compare(state, x, x + 1e-3);
}

BENCHMARK(BM_compare_1080p_identical)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_compare_1080p_within)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_compare_1080p_beyond)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_compare_1080p_uint8_off_by_one)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_compare_default_suite_image)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace devparity::bench
