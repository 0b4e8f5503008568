#pragma once
/// The tracer active in this process, and what every tracer shares: the
/// source locator and each thread's declared hand-overs (internal to trace/).
///
/// Note [Tracer threads]
/// The callbacks are registered thread-locally, and LibTorch hands them on to
/// the threads that run work for this one (the autograd engine runs backward
/// for non-CPU devices on per-device threads, with the caller's thread-local
/// state). So the active tracer is process-wide and each thread keeps its own
/// stack of scopes and ops (trace/frames.h). One tracer at a time.

#include "harness/trace/tracer.h"

#include <atomic>
#include <functional>
#include <mutex>

namespace devparity::tracing {

class ActiveTracer {
 public:
  /// The process's.
  static ActiveTracer& get();

  /// The active tracer's state, for the callbacks; null when none is active.
  Tracer::State* state() const { return state_.load(); }
  /// Makes `tracer` (whose state is `state`) the active one; throws
  /// std::logic_error while another is.
  void activate(Tracer& tracer, Tracer::State& state);
  /// No tracer is active from now on (the active one's destructor).
  void deactivate();
  /// Tracer::with_active.
  bool with(const std::function<void(Tracer&)>& use);

  void set_locator(SourceLocator locator) { locator_.store(locator); }
  SourceLocator locator() const { return locator_.load(); }
  /// Where the subject's code is now, by the locator; empty without one.
  SourcePoint source() const;

  /// enter_host_handover() minus leave_host_handover() on this thread.
  static int& handover_depth();

 private:
  ActiveTracer() = default;

  std::atomic<Tracer::State*> state_{nullptr};
  std::mutex mutex_;  // guards tracer_ while with() uses it
  Tracer* tracer_ = nullptr;
  std::atomic<SourceLocator> locator_{nullptr};
};

}  // namespace devparity::tracing

namespace devparity::tracing {

/// Where the subject's code is now (ActiveTracer::source).
inline SourcePoint current_source() { return ActiveTracer::get().source(); }

}  // namespace devparity::tracing
