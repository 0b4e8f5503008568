// The ten most used catalog transforms at 1x3x1080x1920 float32, each next to
// the LibTorch-native way of doing the same (BM_catalog_X against
// BM_native_X; tools/bench/ratios.py prints the ratios). color_jitter has no
// native counterpart and runs alone.

#include "tools/bench/bench_util.h"

#include <ATen/ATen.h>

#include <cmath>

namespace devparity::bench {
namespace {

constexpr int64_t kH = 1080, kW = 1920;

const at::Tensor& frame() {
  static const at::Tensor x = image(kH, kW, at::kFloat);
  return x;
}

template <typename F>
void run_native(benchmark::State& state, F&& f) {
  const auto& x = frame();
  f(x);  // before the clock, as run_subject does
  for (auto _ : state) {
    auto y = f(x);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void BM_catalog_hflip(benchmark::State& s) { run_subject(s, "hflip", frame(), {}); }
void BM_native_hflip(benchmark::State& s) {
  run_native(s, [](const at::Tensor& x) { return at::flip(x, {3}); });
}

void BM_catalog_center_crop(benchmark::State& s) { run_subject(s, "center_crop", frame(), {{"size", {720, 1280}}}); }
void BM_native_center_crop(benchmark::State& s) {
  run_native(s, [](const at::Tensor& x) { return x.narrow(2, 180, 720).narrow(3, 320, 1280).contiguous(); });
}

void BM_catalog_normalize(benchmark::State& s) { run_subject(s, "normalize", frame(), {}); }
void BM_native_normalize(benchmark::State& s) {
  const auto mean = at::tensor({0.485, 0.456, 0.406}, at::kFloat).view({1, 3, 1, 1});
  const auto std = at::tensor({0.229, 0.224, 0.225}, at::kFloat).view({1, 3, 1, 1});
  run_native(s, [&](const at::Tensor& x) { return x.sub(mean).div(std); });
}

void BM_catalog_adjust_brightness(benchmark::State& s) {
  run_subject(s, "adjust_brightness", frame(), {{"factor", 1.3}});
}
void BM_native_adjust_brightness(benchmark::State& s) {
  run_native(s, [](const at::Tensor& x) { return x.mul(1.3).clamp(0.0, 1.0); });
}

void BM_catalog_adjust_contrast(benchmark::State& s) { run_subject(s, "adjust_contrast", frame(), {{"factor", 1.3}}); }
void BM_native_adjust_contrast(benchmark::State& s) {
  const auto weights = at::tensor({0.2989, 0.587, 0.114}, at::kFloat).view({1, 3, 1, 1});
  run_native(s, [&](const at::Tensor& x) {
    const auto mean = x.mul(weights).sum(1, true).mean({1, 2, 3}, true);
    return x.mul(1.3).add(mean, -0.3).clamp(0.0, 1.0);
  });
}

void BM_catalog_rgb_to_grayscale(benchmark::State& s) { run_subject(s, "rgb_to_grayscale", frame(), {}); }
void BM_native_rgb_to_grayscale(benchmark::State& s) {
  const auto weights = at::tensor({0.2989, 0.587, 0.114}, at::kFloat).view({1, 3, 1, 1});
  run_native(s, [&](const at::Tensor& x) { return x.mul(weights).sum(1, true); });
}

void BM_catalog_rotate(benchmark::State& s) {
  run_subject(s, "rotate", frame(), {{"angle", 30}, {"interpolation", "bilinear"}});
}
void BM_native_rotate(benchmark::State& s) {
  // affine_grid + grid_sampler on the normalised map of a 30 degree turn
  // (aspect-corrected), which is what torchvision's rotate runs.
  const double a = 30.0 * M_PI / 180.0, r = static_cast<double>(kH) / kW;
  const auto theta = at::tensor({std::cos(a), std::sin(a) * r, 0.0, -std::sin(a) / r, std::cos(a), 0.0}, at::kFloat)
                         .view({1, 2, 3});
  run_native(s, [&](const at::Tensor& x) {
    const auto grid = at::affine_grid_generator(theta, {1, 3, kH, kW}, false);
    return at::grid_sampler(x, grid, 0, 0, false);
  });
}

void BM_catalog_pad_reflect(benchmark::State& s) {
  run_subject(s, "pad", frame(), {{"padding", 32}, {"padding_mode", "reflect"}});
}
void BM_native_pad_reflect(benchmark::State& s) {
  run_native(s, [](const at::Tensor& x) { return at::reflection_pad2d(x, {32, 32, 32, 32}); });
}

void BM_catalog_resized_crop(benchmark::State& s) {
  run_subject(s, "resized_crop", frame(),
              {{"top", 100}, {"left", 200}, {"height", 800}, {"width", 1200}, {"size", {224, 224}}});
}
void BM_native_resized_crop(benchmark::State& s) {
  run_native(s, [](const at::Tensor& x) {
    return at::upsample_bilinear2d(x.narrow(2, 100, 800).narrow(3, 200, 1200), {224, 224}, false);
  });
}

void BM_catalog_gaussian_noise(benchmark::State& s) { run_subject(s, "gaussian_noise", frame(), {{"sigma", 0.1}}); }
void BM_native_gaussian_noise(benchmark::State& s) {
  run_native(s, [](const at::Tensor& x) { return x.add(at::randn_like(x).mul(0.1)).clamp(0.0, 1.0); });
}

void BM_catalog_color_jitter(benchmark::State& s) {
  run_subject(s, "color_jitter", frame(), {{"brightness", 0.4}, {"contrast", 0.4}, {"saturation", 0.4}, {"hue", 0.1}});
}

#define DP_PAIR(name)                                               \
  BENCHMARK(BM_catalog_##name)->Unit(benchmark::kMillisecond);      \
  BENCHMARK(BM_native_##name)->Unit(benchmark::kMillisecond)

DP_PAIR(hflip);
DP_PAIR(center_crop);
DP_PAIR(normalize);
DP_PAIR(adjust_brightness);
DP_PAIR(adjust_contrast);
DP_PAIR(rgb_to_grayscale);
DP_PAIR(rotate);
DP_PAIR(pad_reflect);
DP_PAIR(resized_crop);
DP_PAIR(gaussian_noise);
BENCHMARK(BM_catalog_color_jitter)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace devparity::bench
