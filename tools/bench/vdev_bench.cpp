// The asynchronous vdev's cost per op against the number of live vdev
// blocks: each queued item is followed by a reap of the blocks freed while
// work on them was pending, which must not scan the live ones (issue 57:
// torchvision's TestDeformConv keeps ~10^5 small blocks alive through
// autograd, and a scan of every block after every item did not finish in 15
// minutes). Run with 1,000 and 10,000 live blocks: flat is right.

#include "harness/vdev/async.h"
#include "harness/vdev/mode.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/vdev.h"

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include <vector>

namespace devparity::bench {
namespace {

// vdev's mode now with its asynchrony and arithmetic as a benchmark wants them.
vdev::Mode mode_with(bool async, bool cuda_arithmetic = true) {
  auto m = vdev::mode();
  m.async = async;
  m.cuda_arithmetic = cuda_arithmetic;
  return m;
}

void BM_vdev_async_small_ops_with_live_blocks(benchmark::State& state) {
  const auto device = c10::Device(c10::DeviceType::PrivateUse1, 1);
  {
    const vdev::ModeScope async(mode_with(true));
    vdev::async::Session session(1);
    // Pinned memory lets work overlap: ops queue from here (Note [Ops at their call while nothing overlaps]).
    const auto pinned = vdev::async::pinned_empty({4}, at::kFloat);
    std::vector<at::Tensor> live;
    live.reserve(static_cast<size_t>(state.range(0)));
    for (int64_t i = 0; i < state.range(0); ++i) live.push_back(at::empty({4}, at::TensorOptions().device(device)));
    const auto x = at::ones({16}, at::TensorOptions().device(device));
    for (auto _ : state) {
      auto y = x * 2 + 1;  // three queued items, a temporary freed while its work may be pending
      benchmark::DoNotOptimize(y.data_ptr());
    }
    session.finish();
  }
  state.counters["live_blocks"] = static_cast<double>(state.range(0));
}

BENCHMARK(BM_vdev_async_small_ops_with_live_blocks)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

// The same three ops on each device as a test's code runs them, before anything lets work overlap:
// the CPU's kernels alone, the synchronous vdev, and the asynchronous vdev running each op at its call
// (Note [Ops at their call while nothing overlaps]): what the simulated device adds to every op.
void run_three_small_ops(benchmark::State& state, const c10::Device& device) {
  const auto x = at::ones({16}, at::TensorOptions().device(device));
  for (auto _ : state) {
    auto y = x * 2 + 1;
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void BM_vdev_three_small_ops_cpu(benchmark::State& state) { run_three_small_ops(state, c10::Device(c10::kCPU)); }

void BM_vdev_three_small_ops_sync(benchmark::State& state) {
  run_three_small_ops(state, c10::Device(c10::DeviceType::PrivateUse1, 1));
}

// The same with CUDA's arithmetic off (--vdev-arithmetic cpu): what looking up a model for each op costs.
void BM_vdev_three_small_ops_sync_cpu_arithmetic(benchmark::State& state) {
  const vdev::ModeScope cpu_arithmetic(mode_with(false, false));
  run_three_small_ops(state, c10::Device(c10::DeviceType::PrivateUse1, 1));
}

void BM_vdev_three_small_ops_async_at_call(benchmark::State& state) {
  const vdev::ModeScope async(mode_with(true));
  vdev::async::Session session(1);
  run_three_small_ops(state, c10::Device(c10::DeviceType::PrivateUse1, 1));
  session.finish();
}

// What CUDA's models of resampling cost where a test calls them: a 3x512x512
// float32 image resized as torchvision's default does (bilinear, antialias,
// to 341x341) and warped by an affine grid (bmm, grid_sample bilinear), on the
// CPU, on vdev with the models (the default) and with --vdev-arithmetic cpu.
// A modelled call also runs the CPU's kernel, to know what moved.
enum class Arithmetic { kCpuDevice, kCuda, kCpu };

void run_resample(benchmark::State& state, Arithmetic arithmetic, bool warp) {
  const auto device = arithmetic == Arithmetic::kCpuDevice ? c10::Device(c10::kCPU)
                                                           : c10::Device(c10::DeviceType::PrivateUse1, 1);
  const vdev::ModeScope mode(mode_with(false, arithmetic != Arithmetic::kCpu));
  const auto x = at::rand({1, 3, 512, 512}).to(device);
  const auto theta = at::tensor({0.9, -0.3, 0.05, 0.35, 0.85, -0.1}, at::kFloat).view({1, 2, 3}).to(device);
  for (auto _ : state) {
    at::Tensor y;
    if (warp) {
      const auto grid = at::affine_grid_generator(theta, {1, 3, 512, 512}, false);
      y = at::grid_sampler(x, grid, 0, 0, false);
    } else {
      y = at::_upsample_bilinear2d_aa(x, {341, 341}, false);
    }
    benchmark::DoNotOptimize(y.cpu().data_ptr());
  }
}

void BM_vdev_resize_aa_cpu_device(benchmark::State& s) { run_resample(s, Arithmetic::kCpuDevice, false); }
void BM_vdev_resize_aa_cuda_arithmetic(benchmark::State& s) { run_resample(s, Arithmetic::kCuda, false); }
void BM_vdev_resize_aa_cpu_arithmetic(benchmark::State& s) { run_resample(s, Arithmetic::kCpu, false); }
void BM_vdev_affine_warp_cpu_device(benchmark::State& s) { run_resample(s, Arithmetic::kCpuDevice, true); }
void BM_vdev_affine_warp_cuda_arithmetic(benchmark::State& s) { run_resample(s, Arithmetic::kCuda, true); }
void BM_vdev_affine_warp_cpu_arithmetic(benchmark::State& s) { run_resample(s, Arithmetic::kCpu, true); }

BENCHMARK(BM_vdev_resize_aa_cpu_device)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_vdev_resize_aa_cuda_arithmetic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_vdev_resize_aa_cpu_arithmetic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_vdev_affine_warp_cpu_device)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_vdev_affine_warp_cuda_arithmetic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_vdev_affine_warp_cpu_arithmetic)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_vdev_three_small_ops_cpu)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_vdev_three_small_ops_sync)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_vdev_three_small_ops_sync_cpu_arithmetic)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_vdev_three_small_ops_async_at_call)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace devparity::bench
