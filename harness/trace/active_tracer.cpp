#include "harness/trace/active_tracer.h"

#include <stdexcept>

namespace devparity::tracing {

ActiveTracer& ActiveTracer::get() {
  static ActiveTracer active;
  return active;
}

void ActiveTracer::activate(Tracer& tracer, Tracer::State& state) {
  Tracer::State* expected = nullptr;
  if (!state_.compare_exchange_strong(expected, &state)) {
    throw std::logic_error("a Tracer is already active (one at a time, Note [Tracer threads])");
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  tracer_ = &tracer;
}

void ActiveTracer::deactivate() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    tracer_ = nullptr;
  }
  state_.store(nullptr);
}

bool ActiveTracer::with(const std::function<void(Tracer&)>& use) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (tracer_ == nullptr) return false;
  use(*tracer_);
  return true;
}

SourcePoint ActiveTracer::source() const {
  const auto locate = locator_.load();
  return locate == nullptr ? SourcePoint{} : locate();
}

int& ActiveTracer::handover_depth() {
  thread_local int depth = 0;
  return depth;
}

}  // namespace devparity::tracing
