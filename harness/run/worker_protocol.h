#pragma once
/// What a parent and a worker say to each other (Note [Workers]).
///
/// Note [Workers]
/// A worker is the devparity executable itself, started (fork + exec, so a
/// CUDA context is never inherited across fork) with the parent's command
/// line plus `--worker SPEC`: it rebuilds the same plan, runs only the
/// trials SPEC names and writes each result as one JSON line to the file
/// descriptor in DEVPARITY_WORKER_FD, after a ready line (Note [Worker
/// start]). The parent (worker_supervisor.h) streams those results to its
/// reporters as they arrive; when the worker dies or stops making progress
/// for the timeout, the parent kills it and reports every trial it did not
/// finish as an error naming the signal or exit status and the worker's last
/// stderr lines.

#include "harness/model/results.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace devparity {

struct Plan;

/// One unit of work for a worker: a group of the plan, and one of its trials
/// (or all of them when trial < 0).
struct WorkerItem {
  size_t group = 0;
  int trial = -1;
};

/// "3:1,4" <-> {{3, 1}, {4, -1}}. parse throws UsageError.
std::string worker_spec(const std::vector<WorkerItem>& items);
std::vector<WorkerItem> parse_worker_spec(const std::string& spec);

/// The spec of the worker that runs the trials leaving a process with two
/// accelerators (accelerator_split.h): a word, not a list, as a plan may have
/// more of them than a command line holds.
inline constexpr const char* kSplitSpec = "split";
/// The items `spec` names in `plan`: kSplitSpec's, or parse_worker_spec's.
std::vector<WorkerItem> worker_items(const Plan& plan, const std::string& spec);

/// The plan restricted to `items` (groups and trials in their plan order).
/// Throws UsageError for a group or trial the plan lacks.
Plan select_items(const Plan& plan, const std::vector<WorkerItem>& items);

/// The environment variable naming the worker's result descriptor.
inline constexpr const char* kWorkerFdVariable = "DEVPARITY_WORKER_FD";

/// The line a worker writes once it has loaded and rebuilt its plan.
std::string worker_ready_line();
/// One result as one line (newline included).
std::string worker_result_line(const TrialResult& result);

/// A line from a worker: ready, a result, or nothing usable (a torn line
/// from a dying worker).
struct WorkerLine {
  bool ready = false;
  std::optional<TrialResult> result;
};
WorkerLine parse_worker_line(const std::string& line);

}  // namespace devparity
