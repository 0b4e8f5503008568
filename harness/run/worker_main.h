#pragma once
/// The worker's end of isolation (Note [Workers], worker_protocol.h).

#include <string>

namespace devparity {

struct Plan;
struct RunnerOptions;

/// Runs `selected` (the plan restricted to the items the worker's spec names:
/// select_items(plan, worker_items(plan, spec))) and writes the ready line,
/// then each result as one JSON line, to the descriptor in
/// DEVPARITY_WORKER_FD. Throws UsageError when not started by IsolatedExecutor.
void serve_worker(const Plan& selected, const RunnerOptions& options);

}  // namespace devparity
