// Gaussian blur 5x5 on 1x3x1080x1920: our separable shifted-slice blur
// (float32 and uint8 fixed point) and LibTorch's reflection_pad2d + conv2d
// with the same 5x5 kernel, for scale.

#include "tools/bench/bench_util.h"

namespace devparity::bench {
namespace {

const nlohmann::json kParams = {{"kernel_size", {5, 5}}, {"sigma", {1.5, 1.5}}, {"border", "reflect"}};

void BM_blur_float32(benchmark::State& state) {
  run_subject(state, "gaussian_blur2d", image(1080, 1920, at::kFloat), kParams);
}

void BM_blur_uint8_fixed_point(benchmark::State& state) {
  run_subject(state, "gaussian_blur2d", image(1080, 1920, at::kByte), kParams);
}

void BM_libtorch_conv2d_blur_float32(benchmark::State& state) {
  const auto x = image(1080, 1920, at::kFloat);
  const auto k = at::exp(-(at::arange(5, at::kFloat) - 2).pow(2) / (2 * 1.5 * 1.5));
  const auto k1 = k / k.sum();
  const auto weight = at::outer(k1, k1).reshape({1, 1, 5, 5}).repeat({3, 1, 1, 1});
  for (auto _ : state) {
    auto y = at::conv2d(at::reflection_pad2d(x, {2, 2, 2, 2}), weight, at::Tensor(),
                        at::IntArrayRef{1, 1}, at::IntArrayRef{0, 0}, at::IntArrayRef{1, 1}, 3);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

BENCHMARK(BM_blur_float32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_blur_uint8_fixed_point)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_libtorch_conv2d_blur_float32)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace devparity::bench
