#pragma once
/// A trace's state (internal to trace/): what it is told once, its target,
/// and what it learns while ops run, which the callbacks of every thread
/// (trace/observer.cpp, trace/judge.cpp) and the tracer's API
/// (trace/tracer.cpp) reach only with its lock held.

#include "harness/trace/finding.h"
#include "harness/trace/forward_lines.h"
#include "harness/trace/provenance.h"
#include "harness/trace/tracer.h"

#include <ATen/core/Tensor.h>
#include <ATen/record_function.h>
#include <c10/core/Device.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace devparity {
namespace tracing {

/// What a trace judges by, fixed when it starts (TraceSeeds' sites and rules).
struct TraceRules {
  std::set<std::string> factory_sites;
  std::set<std::string> deviceless_sites;
  std::set<std::string> host_sites;
  bool literals_by_line = false;
  bool cpu_means_default = false;
  bool positive = false;  // TraceSeeds::positive_device_data
};

/// What a trace learns while ops run.
struct Ledger {
  StorageRecords records;
  FindingSet findings;
  Finding failed;  // the top-level op an exception left
  int64_t ops = 0;
  int64_t tensors = 0;
  std::vector<DeviceDraw> draws;
  ForwardLines forward_lines;  // Note [Backward lines]
  bool device_work = false;    // device data exists: marked, or given to an op
};

}  // namespace tracing

class Tracer::State {
 public:
  /// Each state has a generation of its own: a thread's frames left by an
  /// earlier trace (a scope it never saw end) name RecordFunctions that are gone.
  State(const c10::Device& target, const TraceSeeds& seeds);
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  uint64_t generation() const { return generation_; }
  const tracing::TraceRules& rules() const { return rules_; }

  /// The device findings are judged against: the given one, or the inferred
  /// one once inferred (TraceSeeds::infer_target).
  c10::Device target() const { return target_.load(); }
  /// The target is still to be inferred.
  bool inferring() const { return inferring_.load(); }
  /// This trace infers its target (whether or not it has yet).
  bool infers_target() const { return infers_target_; }
  /// The target is `found`, if it is still being inferred.
  void infer(const c10::Device& found);

  /// The ledger while the lock is held, and the judgements that read it.
  class Locked {
   public:
    explicit Locked(State& state) : lock_(state.mutex_), state_(state) {}
    tracing::Ledger* operator->() const { return &state_.ledger_; }
    tracing::Ledger& operator*() const { return state_.ledger_; }

    /// What the tracer recorded of a tensor's storage (Note [Recorded storages]).
    const tracing::Record* record_of(const at::Tensor& t) const { return state_.ledger_.records.find(t); }
    /// Records `t` as host data or device data made as `origin` says.
    tracing::Record* remember(const at::Tensor& t, bool host, std::shared_ptr<const tracing::Origin> origin) {
      return state_.ledger_.records.remember(t, host, std::move(origin));
    }
    bool is_host_data(const at::Tensor& t) const;
    /// Neither device nor host data (Note [Neutral data]).
    bool is_neutral(const at::Tensor& t) const;

   private:
    std::unique_lock<std::mutex> lock_;
    State& state_;
  };
  /// Ops may arrive from autograd worker threads too.
  Locked lock() { return Locked(*this); }

 private:
  const uint64_t generation_;
  const tracing::TraceRules rules_;
  const bool infers_target_;
  std::atomic<c10::Device> target_;
  std::atomic<bool> inferring_;
  std::mutex mutex_;
  tracing::Ledger ledger_;
};

namespace tracing {

/// The callbacks the tracer registers (observer.cpp).
std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn);
void on_end(const at::RecordFunction& fn, at::ObserverContext*);

/// Where the asynchronous vdev's work is enqueued: the scopes and source line
/// of the op this thread is in.
std::string vdev_site();

}  // namespace tracing
}  // namespace devparity
