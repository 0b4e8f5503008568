#pragma once
/// Note [One accelerator per process] in a run: when a plan asks for rows of
/// two accelerator kinds (CUDA and the virtual device), the rows of the kind
/// devparity installs leave this process for a worker of their own, started
/// once and read in plan order, so the report is the same as in one process.

#include "harness/model/results.h"
#include "harness/run/worker_protocol.h"
#include "harness/run/worker_supervisor.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace devparity {

struct DeviceInventory;
struct DeviceKind;
struct Plan;
struct Trial;

/// How a plan's accelerators share this process.
enum class Split {
  kNone,      ///< one accelerator at most: every trial runs here
  kWorker,    ///< the trials that leave run in a worker of their own
  kHeldBack,  ///< no worker can be started: the trials this process cannot host are skipped
};

/// Decides how `plan` runs (Note [One accelerator per process]): split when
/// it asks for two accelerator kinds, or `forced` (--vdev-worker). Where no
/// worker can take the leaving trials - `workers` false (a front end that
/// cannot start workers of itself: Python's audit()), or the leaving kind is
/// installed in this process already - the trials this process cannot host
/// are marked absent with the reason: those of the kind it has not
/// installed, or the leaving kind's where it installed none.
Split decide_split(Plan& plan, bool forced, bool workers);
/// The same, given the accelerator kind this process installed (null: none).
Split decide_split(Plan& plan, bool forced, bool workers, const DeviceKind* installed);

/// True for a trial that leaves a process running two accelerators: its
/// device exists and is of an accelerator kind devparity installs.
bool leaves_for_worker(const Trial& trial);

/// Readies this process for the trials of `plan` it runs itself: installs
/// each kind that needs it (DeviceKind::install). `split`: the trials that
/// leave for a worker do not count.
void install_kinds(const Plan& plan, const DeviceInventory& inventory, bool split);

/// The families whose trials leave for a worker, for the report ("vdev").
std::vector<std::string> leaving_families(const Plan& plan);

/// The trials of `plan` that leave for the worker, in plan order (the worker
/// spec kSplitSpec names them in the worker's own plan).
std::vector<WorkerItem> split_items(const Plan& plan);

/// The trials that leave (leaves_for_worker), run by one worker process
/// started at construction; the runner takes each result when it reaches the
/// trial. A worker that dies or stops reporting leaves an error result for
/// each trial it did not finish, as under --isolate.
class SplitWorker {
 public:
  SplitWorker(const Plan& plan, IsolationOptions options);
  ~SplitWorker();
  SplitWorker(const SplitWorker&) = delete;
  SplitWorker& operator=(const SplitWorker&) = delete;

  /// `trial`'s result, once the worker reported it; empty when the run was
  /// interrupted before it did.
  std::optional<TrialResult> take(const Trial& trial);

 private:
  void receive(TrialResult& result);

  IsolatedExecutor executor_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<std::string, TrialResult> results_;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace devparity
