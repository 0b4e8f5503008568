#include "harness/run/workers.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/interrupt.h"
#include "harness/base/text.h"
#include "harness/run/runner.h"
#include "harness/subject/transform.h"
#include "harness/suite/plan.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <set>

namespace devparity {
namespace {

std::atomic<pid_t> g_worker{0};

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV, a segmentation fault";
    case SIGABRT: return "SIGABRT, an abort";
    case SIGBUS: return "SIGBUS, a bus error";
    case SIGFPE: return "SIGFPE, an arithmetic fault";
    case SIGILL: return "SIGILL, an illegal instruction";
    case SIGKILL: return "SIGKILL (killed; the kernel's out-of-memory killer does this)";
    case SIGTERM: return "SIGTERM";
    default: return fmt::format("signal {} ({})", sig, strsignal(sig));
  }
}

// Keeps the last lines written to a stream.
class Tail {
 public:
  void add(const char* data, size_t n) {
    partial_.append(data, n);
    size_t start = 0;
    for (auto nl = partial_.find('\n'); nl != std::string::npos; nl = partial_.find('\n', start)) {
      push(partial_.substr(start, nl - start));
      start = nl + 1;
    }
    partial_.erase(0, start);
    if (partial_.size() > 4096) push(std::move(partial_)), partial_.clear();
  }
  std::string text() const {
    std::string out;
    for (const auto& l : lines_) out += (out.empty() ? "" : " | ") + l;
    if (!partial_.empty()) out += (out.empty() ? "" : " | ") + partial_;
    return out;
  }

 private:
  void push(std::string line) {
    if (line.empty()) return;
    if (line.size() > 300) line = line.substr(0, 297) + "...";
    lines_.push_back(std::move(line));
    if (lines_.size() > 8) lines_.pop_front();
  }
  std::deque<std::string> lines_;
  std::string partial_;
};

}  // namespace

std::string worker_spec(const std::vector<WorkerItem>& items) {
  std::string out;
  for (const auto& i : items) {
    out += (out.empty() ? "" : ",") + std::to_string(i.group) + (i.trial >= 0 ? ":" + std::to_string(i.trial) : "");
  }
  return out;
}

std::vector<WorkerItem> parse_worker_spec(const std::string& spec) {
  std::vector<WorkerItem> out;
  size_t start = 0;
  while (start < spec.size()) {
    const auto comma = std::min(spec.find(',', start), spec.size());
    const auto piece = spec.substr(start, comma - start);
    const auto colon = piece.find(':');
    const auto g = parse_count(piece.substr(0, colon), 9);
    const auto t = colon == std::string::npos ? std::optional<int64_t>(-1) : parse_count(piece.substr(colon + 1), 9);
    if (!g || !t) throw UsageError(fmt::format("--worker '{}': expected GROUP[:TRIAL],...", spec));
    out.push_back({static_cast<size_t>(*g), static_cast<int>(*t)});
    start = comma + 1;
  }
  if (out.empty()) throw UsageError("--worker: nothing to run");
  return out;
}

Plan select_items(const Plan& plan, const std::vector<WorkerItem>& items) {
  std::map<size_t, std::set<int>> wanted;
  for (const auto& i : items) {
    if (i.group >= plan.groups.size()) {
      throw UsageError(fmt::format("--worker: group {} is not in the plan ({} groups)", i.group, plan.groups.size()));
    }
    wanted[i.group].insert(i.trial);
  }
  Plan out;
  for (const auto& [g, trials] : wanted) {
    auto group = plan.groups[g];
    if (trials.count(-1) == 0) {
      std::vector<Trial> kept;
      for (int t : trials) {
        if (t >= static_cast<int>(group.trials.size())) {
          throw UsageError(fmt::format("--worker: group {} has no trial {}", g, t));
        }
        kept.push_back(group.trials[static_cast<size_t>(t)]);
      }
      group.trials = std::move(kept);
    }
    out.groups.push_back(std::move(group));
  }
  return out;
}

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

namespace {

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

// The worker's two pipes: results (fd 3 in the worker) and its stdout and stderr.
struct WorkerPipes {
  int results[2];
  int output[2];
};

// Starts the worker in its own process group (a timeout kills all of it),
// with its results on fd 3 and its output to the parent's tail.
pid_t spawn_worker(const IsolationOptions& options, const std::vector<WorkerItem>& items, WorkerPipes& pipes) {
  if (pipe2(pipes.results, O_CLOEXEC) != 0 || pipe2(pipes.output, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("--isolate: pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> args = {options.executable};
  args.insert(args.end(), options.arguments.begin(), options.arguments.end());
  args.push_back("--worker");
  args.push_back(worker_spec(items));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("--isolate: fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    dup2(pipes.results[1], 3);
    dup2(pipes.output[1], 1);
    dup2(pipes.output[1], 2);
    setenv("DEVPARITY_WORKER_FD", "3", 1);
    if (options.memory_limit_mb > 0) {
      // The data limit bounds what the worker allocates (heap and private
      // writable mappings); an address-space limit would also count the
      // libraries it maps, which for a CUDA LibTorch exceed a few GiB before
      // main() runs, and the address space CUDA reserves.
      const rlim_t bytes = static_cast<rlim_t>(options.memory_limit_mb) * 1024 * 1024;
      rlimit limit{bytes, bytes};
      setrlimit(RLIMIT_DATA, &limit);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(pipes.results[1]);
  close(pipes.output[1]);
  return pid;
}

// How reading the worker ended.
struct WorkerWatch {
  bool timed_out = false;
  bool interrupted = false;
  bool started = false;  ///< the worker said it was ready (Note [Worker start])
  std::string last_output;
};

// Note [Worker start]
// A worker first loads LibTorch and rebuilds the plan, which takes seconds
// and longer on a loaded machine; --timeout-s is about trials, so its clock
// starts when the worker says it is ready (kReadyLine on the results pipe)
// and restarts at each result. Until then a worker has kWorkerStartS.
constexpr const char* kReadyLine = "{\"worker\":\"ready\"}";
constexpr double kWorkerStartS = 120.0;

// Reads the worker's results and output until both pipes close, a result is
// --timeout-s late, or the run is interrupted. Each owed result goes to `emit`.
class WorkerReader {
 public:
  WorkerReader(const WorkerPipes& pipes, double timeout_s, OwedTrials& owed,
               const std::function<void(TrialResult&)>& emit)
      : fds_{{pipes.results[0], POLLIN, 0}, {pipes.output[0], POLLIN, 0}},
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
      w.started = started_;
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
      const auto line = pending_.substr(start, nl - start);
      start = nl + 1;
      if (!started_ && line == kReadyLine) {
        started_ = true;
        restart_clock(timeout_s_);
        continue;
      }
      TrialResult r;
      try {
        r = TrialResult::from_json(nlohmann::json::parse(line));
      } catch (const std::exception&) {
        continue;  // a torn line from a dying worker
      }
      if (!owed_.settle(r.id)) continue;
      emit_(r);
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
  Tail tail_;
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

}  // namespace

bool IsolatedExecutor::run(const Plan& plan, const std::vector<WorkerItem>& items,
                           const std::function<void(TrialResult&)>& emit) const {
  OwedTrials owed(plan, items);
  WorkerPipes pipes;
  const pid_t pid = spawn_worker(options_, items, pipes);
  g_worker.store(pid);
  const auto watch = WorkerReader(pipes, options_.timeout_s, owed, emit).watch();
  if (watch.timed_out || watch.interrupted) ::kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
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

namespace {

// Each result as a JSON line on the descriptor the parent gave.
class WorkerListener final : public RunListener {
 public:
  explicit WorkerListener(int fd) : fd_(fd) {}
  void on_trial_end(const TrialResult& result) override {
    write_line(result.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  void write_line(const std::string& line) {
    size_t done = 0;
    while (done < line.size()) {
      const auto n = ::write(fd_, line.data() + done, line.size() - done);
      if (n <= 0) throw std::runtime_error("worker: the parent stopped reading");
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
};

}  // namespace

void serve_worker(const Plan& plan, const std::string& spec, const RunnerOptions& options) {
  const char* fd = std::getenv("DEVPARITY_WORKER_FD");
  if (fd == nullptr) throw UsageError("--worker is internal to --isolate");
  const auto selected = select_items(plan, parse_worker_spec(spec));
  WorkerListener listener(std::atoi(fd));
  listener.write_line(std::string(kReadyLine) + "\n");  // Note [Worker start]
  Runner(listener, options).run(selected, RunInfo{});
}

}  // namespace devparity
