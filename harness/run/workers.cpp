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
  const auto& trial = group.trials[t];
  TrialResult r;
  r.id = trial.id;
  r.suite = group.spec->suite;
  r.case_name = group.spec->name;
  r.subject = group.spec->subject;
  r.variant = group.variant;
  r.dtype = dtype_name(group.dtype);
  r.device = trial.target.name;
  r.resolved_device = trial.target.available() ? trial.target.resolved_name() : "";
  r.reference_device = group.reference_device.name;
  r.reference_subject = group.reference_subject->info().name;
  r.input = group.input.label();
  r.shape = group.input.shape;
  r.seed = group.seed;
  r.params = group.given;
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
                           const std::function<void(TrialResult&)>& emit) const {
  // What the worker owes: id -> (group, trial), in plan order.
  std::vector<std::pair<size_t, size_t>> owed;
  std::map<std::string, size_t> index;
  for (const auto& i : items) {
    const auto& group = plan.groups.at(i.group);
    for (size_t t = 0; t < group.trials.size(); ++t) {
      if (i.trial >= 0 && static_cast<size_t>(i.trial) != t) continue;
      index[group.trials[t].id] = owed.size();
      owed.emplace_back(i.group, t);
    }
  }
  std::vector<bool> done(owed.size(), false);

  int results[2], err[2];
  if (pipe2(results, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("--isolate: pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> args = {options_.executable};
  args.insert(args.end(), options_.arguments.begin(), options_.arguments.end());
  args.push_back("--worker");
  args.push_back(worker_spec(items));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("--isolate: fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The worker: its own process group (a timeout kills all of it), results
    // on fd 3, stdout and stderr to the parent's tail.
    setpgid(0, 0);
    dup2(results[1], 3);
    dup2(err[1], 1);
    dup2(err[1], 2);
    setenv("DEVPARITY_WORKER_FD", "3", 1);
    if (options_.memory_limit_mb > 0) {
      // The data limit bounds what the worker allocates (heap and private
      // writable mappings); an address-space limit would also count the
      // libraries it maps, which for a CUDA LibTorch exceed a few GiB before
      // main() runs, and the address space CUDA reserves.
      const rlim_t bytes = static_cast<rlim_t>(options_.memory_limit_mb) * 1024 * 1024;
      rlimit limit{bytes, bytes};
      setrlimit(RLIMIT_DATA, &limit);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  g_worker.store(pid);
  close(results[1]);
  close(err[1]);

  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s));
  std::string pending;
  Tail tail;
  bool timed_out = false, interrupted = false;
  pollfd fds[2] = {{results[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    const int n = poll(fds, 2, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (interrupt::signal() != 0) {
      interrupted = true;
      break;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (auto& fd : fds) {
      if (fd.fd < 0 || (fd.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t got = read(fd.fd, buffer, sizeof buffer);
      if (got <= 0) {
        close(fd.fd);
        fd.fd = -1;
        --open_fds;
        continue;
      }
      if (fd.fd == err[0]) {
        tail.add(buffer, static_cast<size_t>(got));
        continue;
      }
      pending.append(buffer, static_cast<size_t>(got));
      size_t start = 0;
      for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n', start)) {
        const auto line = pending.substr(start, nl - start);
        start = nl + 1;
        TrialResult r;
        try {
          r = TrialResult::from_json(nlohmann::json::parse(line));
        } catch (const std::exception&) {
          continue;  // a torn line from a dying worker
        }
        const auto it = index.find(r.id);
        if (it == index.end() || done[it->second]) continue;
        done[it->second] = true;
        emit(r);
        deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s));
      }
      pending.erase(0, start);
    }
  }
  if (timed_out || interrupted) ::kill(-pid, SIGKILL);
  for (auto& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_worker.store(0);
  if (interrupted) return false;  // abandoned, not failed: nothing more is reported

  std::string cause;
  if (timed_out) {
    cause = fmt::format("timeout: no result for {:g} s (--timeout-s); the worker was killed", options_.timeout_s);
  } else if (WIFSIGNALED(status)) {
    cause = "the worker died of " + signal_name(WTERMSIG(status));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    cause = "the worker could not be started (" + options_.executable + ")";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    cause = fmt::format("the worker exited with status {}", WEXITSTATUS(status));
  } else {
    cause = "the worker exited without reporting the trial";
  }
  bool clean = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  const auto last = tail.text();
  bool first = true;
  for (size_t k = 0; k < owed.size(); ++k) {
    if (done[k]) continue;
    clean = false;
    // The first unfinished trial is the one that was running.
    auto why = first ? cause : "not run: " + cause + " during an earlier trial of the same worker";
    if (!last.empty()) why += "; last output: " + last;
    first = false;
    auto r = unfinished_trial(plan, owed[k].first, owed[k].second, why);
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
    const auto line = result.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
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
  Runner(listener, options).run(selected, RunInfo{});
}

}  // namespace devparity
