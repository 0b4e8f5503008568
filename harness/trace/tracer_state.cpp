#include "harness/trace/tracer_state.h"

#include <atomic>

namespace devparity {

namespace {

tracing::TraceRules rules_of(const TraceSeeds& seeds) {
  tracing::TraceRules r;
  r.factory_sites = seeds.factory_sites;
  r.deviceless_sites = seeds.deviceless_sites;
  r.host_sites = seeds.host_sites;
  r.literals_by_line = seeds.literals_by_line;
  r.cpu_means_default = seeds.cpu_means_default;
  r.positive = seeds.positive_device_data;
  return r;
}

uint64_t next_generation() {
  static std::atomic<uint64_t> generations{0};
  return ++generations;
}

}  // namespace

Tracer::State::State(const c10::Device& target, const TraceSeeds& seeds)
    : generation_(next_generation()),
      rules_(rules_of(seeds)),
      infers_target_(seeds.infer_target),
      target_(target),
      inferring_(seeds.infer_target) {}

void Tracer::State::infer(const c10::Device& found) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!inferring_.load()) return;
  target_.store(found);
  inferring_.store(false);
}

bool Tracer::State::Locked::is_host_data(const at::Tensor& t) const {
  const auto target = state_.target();
  if (t.device() != target) return t.device().is_cpu();
  if (!target.is_cpu()) return false;
  // A Python number wrapped for an op (`x + 1`) is a CPU scalar on any device.
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) return true;
  const auto* r = record_of(t);  // Note [Recorded storages]
  return r != nullptr && r->host;
}

// Note [Neutral data]: on the cpu row of a Python trace, a tensor the
// tracer has no record of is neither device data nor host data.
bool Tracer::State::Locked::is_neutral(const at::Tensor& t) const {
  const auto target = state_.target();
  if (!state_.rules_.positive || !target.is_cpu() || t.device() != target ||
      t.unsafeGetTensorImpl()->is_wrapped_number()) {
    return false;
  }
  const auto* r = record_of(t);
  return r == nullptr || r->provisional;
}

}  // namespace devparity
