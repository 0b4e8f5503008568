// Forward and forward+backward of the differentiable transforms at the sizes
// of issue 5: the JPEG codec on 8x3x256x256, Planckian jitter and Gaussian
// illumination on 8x3x512x512, float32. Forward runs without autograd (as
// inference does); forward+backward records the graph and backpropagates a
// fixed upstream gradient into the input. ratios.py divides the two.

#include "harness/subject/state.h"
#include "tools/bench/bench_util.h"

#include <ATen/core/grad_mode.h>

#include <memory>

namespace devparity::bench {
namespace {

// The sampled params and, for stateful subjects, the state made once: the
// runner builds state per trial, but a training loop builds it once.
struct Prepared {
  const Transform* subject = nullptr;
  nlohmann::json params;
  std::unique_ptr<TransformState> state;

  at::Tensor operator()(const at::Tensor& x) const {
    if (state) return static_cast<const StatefulTransform*>(subject)->apply(x, params, *state);
    return subject->apply(x, params);
  }
};

Prepared prepare(const std::string& name, const at::Tensor& x, const nlohmann::json& given) {
  register_builtins();
  Prepared p;
  p.subject = TransformRegistry::global().find(name);
  if (p.subject == nullptr) throw std::runtime_error("no subject " + name);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  p.params = p.subject->sample(given, x.sizes(), gen);
  if (const auto* stateful = dynamic_cast<const StatefulTransform*>(p.subject)) {
    p.state = stateful->make_state(p.params);
  }
  return p;
}

void forward(benchmark::State& state, const std::string& name, const at::Tensor& x,
             const nlohmann::json& given) {
  const auto run = prepare(name, x, given);
  at::NoGradGuard no_grad;
  for (auto _ : state) {
    auto y = run(x);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void forward_backward(benchmark::State& state, const std::string& name, const at::Tensor& x,
                      const nlohmann::json& given) {
  const auto run = prepare(name, x, given);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
  const auto upstream = at::rand(x.sizes(), gen) * 2 - 1;
  const auto leaf = x.detach().requires_grad_(true);
  for (auto _ : state) {
    auto y = run(leaf);
    y.backward(upstream);
    benchmark::DoNotOptimize(leaf.grad().data_ptr());
    leaf.mutable_grad().reset();
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

// Every sample transformed: the cost of the transform, not of the gate.
const nlohmann::json kJpeg = {{"quality_range", {50, 90}}};
const nlohmann::json kPlanckian = {{"p", 1.0}};
const nlohmann::json kIllumination = {{"p", 1.0}};

#define DP_BACKWARD_PAIR(name, subject, params, size, batch)                               \
  void BM_##name##_forward(benchmark::State& s) {                                          \
    forward(s, subject, image(size, size, at::kFloat, batch), params);                     \
  }                                                                                        \
  void BM_##name##_forward_backward(benchmark::State& s) {                                 \
    forward_backward(s, subject, image(size, size, at::kFloat, batch), params);            \
  }                                                                                        \
  BENCHMARK(BM_##name##_forward)->Unit(benchmark::kMillisecond);                           \
  BENCHMARK(BM_##name##_forward_backward)->Unit(benchmark::kMillisecond);

DP_BACKWARD_PAIR(jpeg_8x3x256x256, "jpeg_codec_differentiable", kJpeg, 256, 8)
DP_BACKWARD_PAIR(planckian_8x3x512x512, "planckian_jitter", kPlanckian, 512, 8)
DP_BACKWARD_PAIR(illumination_8x3x512x512, "gaussian_illumination", kIllumination, 512, 8)

}  // namespace
}  // namespace devparity::bench
