// The console: a live progress line on terminals, failures as they happen
// (a cause's first trial in full, later ones pointing back to it), one line
// per case, and a summary table with the failures grouped by cause.
//
// Note [Progress without a terminal]
// A CI log has no live line, and a case of 90,000 trials showed only its header for minutes. Off
// a terminal, a line at least every `progress_s` seconds (default 10) says how far the run is,
// about how long is left (its own pace so far), how far the case is, and the trial running and
// for how long: a thread of its own prints it, so that a stuck trial still shows. A plan of
// kHugePlan trials or more is announced with an estimate before it starts (--max-trials refuses
// one).

#include "harness/model/failure_groups.h"
#include "harness/reporters/reporter_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace devparity {
namespace {

const char* colour_of(Status s) {
  switch (s) {
    case Status::kPass: return "\033[32m";
    case Status::kFail: return "\033[31m";
    case Status::kError: return "\033[35m";
    case Status::kSkip: return "\033[33m";
  }
  return "";
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// "45 s", "3 min 20 s", "2 h 05 min".
std::string duration_text(double s) {
  const auto t = static_cast<int64_t>(s + 0.5);
  if (t < 60) return fmt::format("{} s", t);
  if (t < 3600) return fmt::format("{} min {:02} s", t / 60, t % 60);
  return fmt::format("{} h {:02} min", t / 3600, (t % 3600) / 60);
}

class ConsoleReporter final : public RunListener {
 public:
  explicit ConsoleReporter(const ReporterOptions& o)
      : out_(o.stream ? *o.stream : std::cout), quiet_(o.quiet), verbose_(o.verbose),
        color_(o.color), interactive_(o.interactive && !o.verbose && !o.quiet),
        progress_s_(o.interactive || o.verbose || o.quiet ? 0.0 : o.progress_s) {}

  ~ConsoleReporter() override { stop_ticker(); }

  // A plan this large is announced before it runs, with an estimate.
  static constexpr int64_t kHugePlan = 100000;
  // The pace the estimate assumes: the default suite's on a CI machine's CPU (~1 ms a trial).
  static constexpr double kTypicalTrialS = 0.001;

  void on_run_start(const RunInfo& info) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    planned_ = info.planned_trials;
    started_ = last_progress_ = Clock::now();
    perturb_ = info.run.value("vdev_perturb", std::vector<std::string>{});
    shard_ = info.run.contains("shard") && info.run["shard"].is_string() ? info.run["shard"].get<std::string>() : "";
    if (planned_ >= kHugePlan) {
      out_ << fmt::format("warning: {} trials planned; at ~{:g} ms a trial (the default suite's pace on a CPU) about {}, "
                          "more with slow subjects; --filter, --dtypes or a smaller grid narrow it, --max-trials N "
                          "refuses a larger plan\n",
                          planned_, kTypicalTrialS * 1000.0, duration_text(static_cast<double>(planned_) * kTypicalTrialS));
    }
    if (progress_s_ > 0.0) ticker_ = std::thread([this] { tick(); });
    if (quiet_) return;
    std::vector<std::string> devices;
    for (const auto& d : info.run.value("devices", nlohmann::json::array())) {
      const auto name = d.value("name", std::string("?"));
      const bool simulated = d.value("simulated", false) && name != "meta";
      devices.push_back(!d.value("present", false) ? name + " (absent)"
                        : simulated                ? name + " (simulated)"
                                                   : name);
    }
    out_ << fmt::format("devparity {} | LibTorch {} | {} trials | devices: {}\n",
                        info.tool.value("version", "?"),
                        info.environment.value("torch_version", "?"), planned_,
                        fmt::join(devices, ", "));
    out_.flush();
  }

  void on_case_start(const CaseInfo& info) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    case_ = info.name;
    case_planned_ = info.planned_trials;
    case_done_ = 0;
  }

  void on_trial_start(const std::string& id) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    trial_ = id;
    trial_started_ = Clock::now();
  }

  void on_trial_end(const TrialResult& r) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    ++case_done_;
    trial_.clear();
    const bool bad = r.status == Status::kFail || r.status == Status::kError;
    const auto [group, fresh] = failures_.add(r);
    if (r.status == Status::kSkip) ++skip_reasons_[skip_reason(r)];
    if (r.perturbed.is_object()) {
      ++perturbed_rows_;
      if (!r.perturbed.value("moved", nlohmann::json::object()).empty()) ++moved_rows_;
    }
    if (verbose_ || bad) {
      clear_progress();
      if (bad && !fresh) {
        out_ << fmt::format("{} {}  (problem {} again)\n", tag(r.status), r.id, group + 1);
      } else {
        out_ << fmt::format("{} {}  {}\n", tag(r.status), r.id, r.message);
      }
    }
    if (interactive_) {
      std::string line = fmt::format("[{:>{}}/{}] {}", done_, digits(), planned_, r.id);
      if (line.size() > 100) line = line.substr(0, 97) + "...";
      out_ << "\r\033[K" << line;
      progress_shown_ = true;
    }
    out_.flush();
  }

  void on_case_end(const CaseInfo& info, const StatusCounts& c) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (quiet_) return;
    clear_progress();
    out_ << fmt::format("[{:>{}}/{}] case {} ({}): {} passed, {} failed, {} errors, {} skipped\n",
                        done_, digits(), planned_, info.name, info.subject, c.passed, c.failed,
                        c.errored, c.skipped);
    out_.flush();
  }

  void on_run_end(const RunSummary& s) override {
    stop_ticker();
    const std::lock_guard<std::mutex> lock(mutex_);
    clear_progress();
    if (!quiet_) {
      out_ << "\n" << fmt::format("{:<12} {:>7} {:>7} {:>7} {:>7}\n", "device", "pass", "fail",
                                  "error", "skip");
      for (const auto& [device, c] : s.by_device) {
        out_ << fmt::format("{:<12} {:>7} {:>7} {:>7} {:>7}\n", device, c.passed, c.failed,
                            c.errored, c.skipped);
      }
      if (!skip_reasons_.empty()) {
        std::vector<std::pair<std::string, int64_t>> reasons(skip_reasons_.begin(),
                                                             skip_reasons_.end());
        std::sort(reasons.begin(), reasons.end(),
                  [](const auto& a, const auto& b) { return a.second > b.second; });
        out_ << "\nskipped, by reason:\n";
        for (size_t i = 0; i < reasons.size() && i < 8; ++i) {
          out_ << fmt::format("  {:>5} x {}\n", reasons[i].second, reasons[i].first);
        }
        if (reasons.size() > 8) out_ << fmt::format("  ... and {} more reasons\n", reasons.size() - 8);
      }
    }
    print_failures();
    if (s.baseline) {
      const auto& b = *s.baseline;
      out_ << fmt::format("\nbaseline {}: {} known failure(s) (not gating), {} new, {} fixed\n", b.path,
                          b.known.size(), b.fresh.size(), b.fixed.size());
      for (size_t i = 0; i < b.fresh.size() && i < 20; ++i) out_ << "  NEW    " << b.fresh[i] << "\n";
      for (size_t i = 0; i < b.fixed.size() && i < 20; ++i) out_ << "  FIXED  " << b.fixed[i] << "\n";
    }
    const auto& c = s.results;
    if (!s.stopped_because.empty()) {
      out_ << "\n" << paint(Status::kError, "STOPPED") << ": " << s.stopped_because << "\n";
    }
    if (s.interrupted_by != 0 && c.total() == 0) {
      out_ << "\n" << paint(Status::kError, "INTERRUPTED")
           << fmt::format(" by signal {} before the first trial ({}); the reports are written, empty, and say so\n",
                          s.interrupted_by,
                          planned_ == 0 ? std::string("while suites loaded") : fmt::format("{} planned", planned_));
      out_.flush();
      return;
    }
    if (s.interrupted_by != 0) {
      out_ << "\n" << paint(Status::kError, "INTERRUPTED")
           << fmt::format(" by signal {} after {} trials ({} passed, {} failed, {} errors, {} skipped); {} of {} "
                          "planned trials did not run; the reports hold the results finished before and say so\n",
                          s.interrupted_by, c.total(), c.passed, c.failed, c.errored, c.skipped,
                          std::max<int64_t>(planned_ - c.total(), 0), planned_);
      out_.flush();
      return;
    }
    const bool ok = s.exit_code() == 0;
    if (ok && c.total() == 0 && !shard_.empty()) {
      // Note [Shards]: a part may hold no trial; it is not a run where nothing ran.
      out_ << "\n" << paint(Status::kSkip, "EMPTY PART")
           << fmt::format(": shard {} holds no trial (the plan has fewer trial groups than parts); its empty report "
                          "is written for devparity merge\n",
                          shard_);
      out_.flush();
      return;
    }
    // Nothing compared is not a pass (issue 56): every trial skipped.
    const bool nothing_ran = c.total() == c.skipped;
    out_ << "\n"
         << paint(ok ? (nothing_ran ? Status::kSkip : Status::kPass) : Status::kFail,
                  ok ? (nothing_ran ? "NOTHING RAN" : "PASSED") : "FAILED")
         << fmt::format(": {} passed, {} failed, {} errors, {} skipped of {} trials in {:.2f} s\n",
                        c.passed, c.failed, c.errored, c.skipped, c.total(), s.duration_s);
    print_coverage(s);
    print_unperturbed();
    out_.flush();
  }

 private:
  // "failures: 1 problem in 8 trials", each cause once with its trials under it.
  void print_failures() {
    const auto& groups = failures_.groups();
    if (groups.empty()) return;
    out_ << "\nfailures: " << failures_.headline() << "\n";
    for (size_t i = 0; i < groups.size() && i < kGroupsShown; ++i) {
      const auto& g = groups[i];
      out_ << fmt::format("  {} [{}] {} -- {}\n", tag(g.status), i + 1, g.where(), g.summary);
      for (size_t k = 0; k < g.ids.size() && k < kTrialsShown; ++k) out_ << "          " << g.ids[k] << "\n";
      if (g.ids.size() > kTrialsShown) out_ << fmt::format("          ... and {} more\n", g.ids.size() - kTrialsShown);
    }
    if (groups.size() > kGroupsShown) {
      out_ << fmt::format("  ... and {} more problems (the report has them all)\n", groups.size() - kGroupsShown);
    }
  }

  // Where cases did not run: the cases that ran nowhere by name, the rest by
  // device and reason (the default audit skips every case on an absent GPU).
  void print_coverage(const RunSummary& s) {
    const auto nowhere = s.coverage.ran_nowhere();
    if (!nowhere.empty()) {
      out_ << fmt::format("  ran nowhere ({} case{}, every trial skipped): {}{}\n", nowhere.size(),
                          nowhere.size() == 1 ? "" : "s",
                          fmt::join(nowhere.begin(), nowhere.begin() + static_cast<long>(std::min<size_t>(nowhere.size(), kGroupsShown)), ", "),
                          nowhere.size() > kGroupsShown ? ", ..." : "");
    }
    std::map<std::pair<std::string, std::string>, size_t> gaps;  // (device, reason) -> cases
    for (const auto& g : s.coverage.gaps()) ++gaps[{g.device, g.reason}];
    size_t shown = 0;
    for (const auto& [where, cases] : gaps) {
      if (shown++ == kGroupsShown) {
        out_ << fmt::format("  ... and {} more (the report's summary.coverage has them all)\n", gaps.size() - kGroupsShown);
        break;
      }
      out_ << fmt::format("  not run on {} for {} case{}: {}\n", where.first, cases, cases == 1 ? "" : "s",
                          where.second.empty() ? "every trial skipped" : where.second);
    }
    if (s.coverage_unmet()) {
      out_ << paint(Status::kFail, "  --require-all") << ": a case did not run on every device of the run (exit 1)\n";
    }
  }

  // --vdev-perturb that moved nothing is a silent no-op otherwise (issue 56).
  void print_unperturbed() {
    if (perturb_.empty() || moved_rows_ > 0) return;
    const auto asked = fmt::format("{}", fmt::join(perturb_, ","));
    out_ << (perturbed_rows_ == 0
                 ? fmt::format("warning: --vdev-perturb {}: no vdev trial ran; nothing was perturbed\n", asked)
                 : fmt::format("warning: --vdev-perturb {}: none of {} vdev trials called an op these switches move; "
                               "nothing was perturbed\n",
                               asked, perturbed_rows_));
  }

  static constexpr size_t kGroupsShown = 20, kTrialsShown = 8;

  static std::string skip_reason(const TrialResult& r) {
    // Group by the deciding check's message, which names the cause.
    return r.message;
  }

  int digits() const { return static_cast<int>(std::to_string(planned_).size()); }

  std::string paint(Status s, const std::string& text) const {
    return color_ ? std::string(colour_of(s)) + text + "\033[0m" : text;
  }

  std::string tag(Status s) const {
    static const std::map<Status, std::string> tags = {
        {Status::kPass, "PASS "}, {Status::kFail, "FAIL "}, {Status::kError, "ERROR"},
        {Status::kSkip, "SKIP "}};
    return paint(s, tags.at(s));
  }

  void clear_progress() {
    if (progress_shown_) {
      out_ << "\r\033[K";
      progress_shown_ = false;
    }
  }

  // Note [Progress without a terminal]: the ticker's thread.
  void tick() {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto poll = std::chrono::duration<double>(std::min(1.0, progress_s_ / 4));
    while (!stopping_) {
      wakeup_.wait_for(lock, poll);
      if (stopping_ || seconds_since(last_progress_) < progress_s_) continue;
      out_ << progress_line() << "\n";
      out_.flush();
      last_progress_ = Clock::now();
    }
  }

  // "progress: 1200/90000 trials (1.3%) in 2 min 10 s, about 2 h 44 min left; case c 1200/90000;
  // running ID for 12 s".
  std::string progress_line() const {
    const double elapsed = seconds_since(started_);
    std::string line = fmt::format("progress: {}/{} trials ({:.1f}%) in {}", done_, planned_,
                                   planned_ > 0 ? 100.0 * static_cast<double>(done_) / static_cast<double>(planned_) : 0.0,
                                   duration_text(elapsed));
    if (done_ > 0 && planned_ > done_) {
      line += fmt::format(", about {} left", duration_text(elapsed / static_cast<double>(done_) *
                                                           static_cast<double>(planned_ - done_)));
    }
    if (!case_.empty()) line += fmt::format("; case {} {}/{}", case_, case_done_, case_planned_);
    if (!trial_.empty()) line += fmt::format("; running {} for {}", trial_, duration_text(seconds_since(trial_started_)));
    return line;
  }

  void stop_ticker() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wakeup_.notify_all();
    if (ticker_.joinable()) ticker_.join();
  }

  std::ostream& out_;
  bool quiet_, verbose_, color_, interactive_;
  const double progress_s_;
  std::mutex mutex_;  // the ticker's thread writes too
  std::condition_variable wakeup_;
  std::thread ticker_;
  bool stopping_ = false;
  Clock::time_point started_ = Clock::now(), last_progress_ = Clock::now(), trial_started_ = Clock::now();
  std::string case_, trial_;
  int64_t case_planned_ = 0, case_done_ = 0;
  bool progress_shown_ = false;
  std::vector<std::string> perturb_;  // the switches asked for
  std::string shard_;                 // "I/N" of a sharded run's part; empty: the whole run
  int64_t perturbed_rows_ = 0, moved_rows_ = 0;
  int64_t planned_ = 0, done_ = 0;
  FailureGroups failures_;
  std::map<std::string, int64_t> skip_reasons_;
};

}  // namespace

void register_console_reporter(ReporterRegistry& registry) {
  registry.add("console", "progress, failures as they happen, per-case lines and a summary table",
               [](const ReporterOptions& o) { return std::make_unique<ConsoleReporter>(o); });
}

}  // namespace devparity
