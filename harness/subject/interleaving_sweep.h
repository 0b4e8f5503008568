#pragma once
/// Note [Interleaving sweep]
/// The race detector judges accesses by happens-before when they are
/// enqueued, so one interleaving finds every race it can see. What it cannot
/// see, a raw host pointer read the code never declared (host_reads()),
/// shows in values instead: a buffer read before its copy landed holds the
/// session's poison byte, which alternates with the interleaving seed's
/// parity. A sweep (`devparity run --interleavings N`) runs the subject again
/// under N - 1 further interleavings and compares output and gradient bytes
/// with the trial's own run; the first difference, or a run that fails only
/// under some interleaving, is an unsynchronized_access finding naming both
/// seeds. The first further one is lazy (work runs only when a sync needs
/// it, so an unordered read always sees the poison) with a seed of the
/// other parity (the other poison byte): N = 2 already tells poison from
/// data, whatever the trial's own interleaving did. Later ones are drawn.

#include "harness/vdev/async.h"
#include "harness/subject/execution.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>

namespace devparity {

/// Interleaving `k` of a trial whose seed is `trial_seed`: k = 0 is the
/// trial's own (its report's interleaving_seed), k = 1 the lazy one.
struct Interleaving {
  uint64_t seed = 0;
  vdev::async::Schedule schedule = vdev::async::Schedule::kDrawn;
};
Interleaving interleaving_of(uint64_t trial_seed, int k);

/// Runs interleavings 1 .. options.interleavings - 1 and adds to `first`
/// (the run under interleaving 0) a finding for the first that differs.
void sweep_interleavings(const Transform& subject, const at::Tensor& input, const nlohmann::json& params,
                         const c10::Device& device, const ExecuteOptions& options, Execution& first);

}  // namespace devparity
