// uint8 1920x1080 -> 1280x720 bilinear: each uint8 strategy by name (the
// default is cpu_kernel), and LibTorch's interpolate on float32 (LibTorch
// 1.13 has no uint8 kernel).

#include "tools/bench/bench_util.h"

namespace devparity::bench {
namespace {

const nlohmann::json kParams = {{"size", {720, 1280}}, {"interpolation", "bilinear"}};

void BM_resize_uint8_fixed_point(benchmark::State& state) {
  auto params = kParams;
  params["uint8_strategy"] = "fixed_point";
  run_subject(state, "resize", image(1080, 1920, at::kByte), params);
}

void BM_resize_uint8_cpu_kernel(benchmark::State& state) {
  auto params = kParams;
  params["uint8_strategy"] = "cpu_kernel";
  run_subject(state, "resize", image(1080, 1920, at::kByte), params);
}

void BM_resize_uint8_float_round_trip(benchmark::State& state) {
  auto params = kParams;
  params["uint8_strategy"] = "float_round_trip";
  run_subject(state, "resize", image(1080, 1920, at::kByte), params);
}

void BM_resize_float32(benchmark::State& state) {
  run_subject(state, "resize", image(1080, 1920, at::kFloat), kParams);
}

void BM_libtorch_interpolate_float32(benchmark::State& state) {
  run_subject(state, "interpolate", image(1080, 1920, at::kFloat), kParams);
}

BENCHMARK(BM_resize_uint8_fixed_point)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_resize_uint8_cpu_kernel)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_resize_uint8_float_round_trip)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_resize_float32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_libtorch_interpolate_float32)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace devparity::bench
