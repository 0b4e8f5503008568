#include "harness/run/worker_supervisor.h"

#include "harness/base/interrupt.h"
#include "harness/run/worker_process.h"
#include "harness/subject/transform.h"
#include "harness/suite/plan.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <map>

namespace devparity {
namespace {

std::atomic<pid_t> g_worker{0};

// Note [Worker start]
// A worker first loads LibTorch and rebuilds the plan, which takes seconds
// and longer on a loaded machine; --timeout-s is about trials, so its clock
// starts when the worker says it is ready (worker_ready_line() on the results
// pipe) and restarts at each result. Until then a worker has kWorkerStartS.
constexpr double kWorkerStartS = 120.0;

// The trials a worker owes, in plan order, and which it has reported.
struct OwedTrials {
  std::vector<std::pair<size_t, size_t>> trials;  // (group, trial)
  std::map<std::string, size_t> index;            // trial id -> position
  std::vector<bool> done;

  OwedTrials(const Plan& plan, const std::vector<WorkerItem>& items) {
    for (const auto& i : items) {
      const auto& group = plan.groups.at(i.group);
      for (size_t t = 0; t < group.trials.size(); ++t) {
        if (i.trial >= 0 && static_cast<size_t>(i.trial) != t) continue;
        index[group.trials[t].id] = trials.size();
        trials.emplace_back(i.group, t);
      }
    }
    done.assign(trials.size(), false);
  }

  // Marks the result's trial done; false for a trial not owed or already reported.
  bool settle(const std::string& id) {
    const auto it = index.find(id);
    if (it == index.end() || done[it->second]) return false;
    done[it->second] = true;
    return true;
  }
};

// How reading the worker ended.
struct WorkerWatch {
  bool timed_out = false;
  bool interrupted = false;
  bool started = false;  ///< the worker said it was ready (Note [Worker start])
  std::string last_output;
};

// Reads the worker's results and output until both pipes close, a result is
// --timeout-s late, or the run is interrupted. Each owed result goes to `emit`.
class WorkerReader {
 public:
  WorkerReader(const WorkerProcess& worker, double timeout_s, OwedTrials& owed,
               const std::function<void(TrialResult&)>& emit)
      : fds_{{worker.results_fd(), POLLIN, 0}, {worker.output_fd(), POLLIN, 0}},
        timeout_s_(timeout_s),
        owed_(owed),
        emit_(emit) {}

  WorkerWatch watch() {
    WorkerWatch w;
    restart_clock(std::max(kWorkerStartS, timeout_s_));
    int open_fds = 2;
    while (open_fds > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      if (left <= 0) {
        w.timed_out = true;
        break;
      }
      const int n = poll(fds_, 2, static_cast<int>(std::min<int64_t>(left, 1000)));
      if (interrupt::signal() != 0) {
        w.interrupted = true;
        break;
      }
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (auto& fd : fds_) open_fds -= drain(fd) ? 0 : 1;
    }
    for (auto& fd : fds_) {
      if (fd.fd >= 0) close(fd.fd);
    }
    w.started = started_;
    w.last_output = tail_.text();
    return w;
  }

 private:
  using Clock = std::chrono::steady_clock;

  void restart_clock(double seconds) {
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

  // Reads what `fd` has; false when it just closed.
  bool drain(pollfd& fd) {
    if (fd.fd < 0 || (fd.revents & (POLLIN | POLLHUP | POLLERR)) == 0) return true;
    const ssize_t got = read(fd.fd, buffer_, sizeof buffer_);
    if (got <= 0) {
      close(fd.fd);
      fd.fd = -1;
      return false;
    }
    if (&fd == &fds_[1]) {
      tail_.add(buffer_, static_cast<size_t>(got));
    } else {
      pending_.append(buffer_, static_cast<size_t>(got));
      take_lines();
    }
    return true;
  }

  void take_lines() {
    size_t start = 0;
    for (auto nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n', start)) {
      auto line = parse_worker_line(pending_.substr(start, nl - start));
      start = nl + 1;
      if (line.ready && !started_) {
        started_ = true;
        restart_clock(timeout_s_);
      }
      if (!line.result || !owed_.settle(line.result->id)) continue;
      emit_(*line.result);
      restart_clock(timeout_s_);
    }
    pending_.erase(0, start);
  }

  pollfd fds_[2];
  double timeout_s_;
  OwedTrials& owed_;
  const std::function<void(TrialResult&)>& emit_;
  Clock::time_point deadline_;
  bool started_ = false;
  std::string pending_;
  OutputTail tail_;
  char buffer_[65536];
};

// Why a worker left trials unreported, from how it ended.
std::string worker_failure(const WorkerWatch& watch, int status, const IsolationOptions& options) {
  if (watch.timed_out && !watch.started) {
    return fmt::format("timeout: the worker did not start (load LibTorch, rebuild the plan) within {:g} s; it "
                       "was killed",
                       std::max(kWorkerStartS, options.timeout_s));
  }
  if (watch.timed_out) {
    return fmt::format("timeout: no result for {:g} s (--timeout-s); the worker was killed", options.timeout_s);
  }
  if (WIFSIGNALED(status)) return "the worker died of " + signal_name(WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return "the worker could not be started (" + options.executable + ")";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return fmt::format("the worker exited with status {}", WEXITSTATUS(status));
  }
  return "the worker exited without reporting the trial";
}

WorkerLaunch launch_of(const IsolationOptions& options, const std::string& spec) {
  WorkerLaunch launch;
  launch.argv = {options.executable};
  launch.argv.insert(launch.argv.end(), options.arguments.begin(), options.arguments.end());
  launch.argv.push_back("--worker");
  launch.argv.push_back(spec);
  launch.memory_limit_mb = options.memory_limit_mb;
  return launch;
}

}  // namespace

TrialResult unfinished_trial(const Plan& plan, size_t g, size_t t, const std::string& why) {
  const auto& group = plan.groups[g];
  auto r = result_of(group, group.trials[t]);
  r.checks.push_back(CheckOutcome::verdict("run", Status::kError, why));
  for (const auto& [name, setting] : group.spec->checks) {
    r.checks.push_back(CheckOutcome::verdict(name, Status::kSkip, "the worker did not finish the trial"));
  }
  r.finalize();
  return r;
}

void IsolatedExecutor::kill_current() {
  const pid_t pid = g_worker.load();
  if (pid > 0) ::kill(-pid, SIGKILL);
}

bool IsolatedExecutor::run(const Plan& plan, const std::vector<WorkerItem>& items,
                           const std::function<void(TrialResult&)>& emit, const std::string& spec) const {
  OwedTrials owed(plan, items);
  const WorkerProcess worker(launch_of(options_, spec.empty() ? worker_spec(items) : spec));
  g_worker.store(worker.pid());
  const auto watch = WorkerReader(worker, options_.timeout_s, owed, emit).watch();
  if (watch.timed_out || watch.interrupted) worker.kill_group();
  const int status = worker.wait();
  g_worker.store(0);
  if (watch.interrupted) return false;  // abandoned, not failed: nothing more is reported

  const auto cause = worker_failure(watch, status, options_);
  bool clean = !watch.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  bool first = true;
  for (size_t k = 0; k < owed.trials.size(); ++k) {
    if (owed.done[k]) continue;
    clean = false;
    // The first unfinished trial is the one that was running.
    auto why = first ? cause : "not run: " + cause + " during an earlier trial of the same worker";
    if (!watch.last_output.empty()) why += "; last output: " + watch.last_output;
    first = false;
    auto r = unfinished_trial(plan, owed.trials[k].first, owed.trials[k].second, why);
    emit(r);
  }
  return clean;
}

}  // namespace devparity
