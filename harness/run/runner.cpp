#include "harness/run/runner.h"

#include "harness/base/interrupt.h"
#include "harness/checks/registry.h"
#include "harness/run/accelerator_split.h"
#include "harness/run/baseline_listener.h"
#include "harness/run/check_dispatch.h"
#include "harness/run/device_health.h"
#include "harness/run/group_run.h"
#include "harness/run/perturbation_verdict.h"
#include "harness/run/result_tally.h"
#include "harness/run/run_verdict.h"
#include "harness/run/watchdog.h"
#include "harness/run/worker_supervisor.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

namespace devparity {
namespace {

using Clock = std::chrono::steady_clock;

// One Runner::run(): the listener chain (baseline -> tally -> the caller's
// listener), the case being reported, the watchdog and the devices' health.
class RunPass {
 public:
  RunPass(const Plan& plan, RunListener& listener, const RunnerOptions& options, const CheckRegistry& checks)
      : plan_(plan), options_(options), tally_(listener),
        dispatch_{checks, options.placement, options.artifacts},
        watchdog_(options.isolate == nullptr ? options.timeout_s : 0.0,
                  [this](size_t group, size_t trial, int signal) { stop_stuck(group, trial, signal); }) {
    if (options.baseline) baseline_.emplace(tally_, *options.baseline, options.baseline_path);
    for (const auto& g : plan.groups) planned_[g.spec] += static_cast<int64_t>(g.trials.size());
  }

  RunListener& out() { return baseline_ ? static_cast<RunListener&>(*baseline_) : tally_; }

  RunSummary run(RunInfo info) {
    info.planned_trials = plan_.trial_count();
    out().on_run_start(info);
    for (size_t g = 0; g < plan_.groups.size() && interrupt::signal() == 0; ++g) {
      enter_case(plan_.groups[g]);
      if (options_.isolate != nullptr) {
        run_isolated(g);
      } else {
        run_group(g);
      }
    }
    end_case();
    out().on_run_end(totals(interrupt::signal(), ""));
    return tally_.final_summary();
  }

 private:
  void enter_case(const TrialGroup& group) {
    if (group.spec == current_) return;
    end_case();
    current_ = group.spec;
    const auto& spec = *group.spec;
    case_info_ = {spec.suite, spec.name, spec.subject, spec.description, planned_[current_]};
    out().on_case_start(case_info_);
  }

  void end_case() {
    if (current_ != nullptr) out().on_case_end(case_info_, {});
  }

  RunSummary totals(int interrupted_by, std::string stopped_because) {
    RunSummary summary = tally_.summary();
    summary.interrupted_by = interrupted_by;
    summary.stopped_because = std::move(stopped_because);
    summary.require_all = options_.require_all;
    summary.duration_s = std::chrono::duration<double>(Clock::now() - start_).count();
    return summary;
  }

  // Every finished result, from this process or a worker, goes through here.
  void finish(TrialResult& r) {
    watchdog_.finished([&] { out().on_trial_end(r); });
  }

  // Note [Workers]: a worker per trial, or per case (its first group runs them all).
  void run_isolated(size_t g) {
    const auto& group = plan_.groups[g];
    auto emit = [&](TrialResult& r) {
      out().on_trial_start(r.id);
      finish(r);
    };
    if (options_.isolate_unit == Isolation::kCase) {
      if (g > 0 && plan_.groups[g - 1].spec == group.spec) return;
      // One worker for the case; two when it spans two accelerators (Note [One accelerator per process]).
      std::vector<WorkerItem> items[2];
      for (size_t k = g; k < plan_.groups.size() && plan_.groups[k].spec == group.spec; ++k) {
        const auto& trials = plan_.groups[k].trials;
        if (!options_.split) items[0].push_back({k, -1});
        for (size_t t = 0; options_.split && t < trials.size(); ++t) {
          items[leaves_for_worker(trials[t]) ? 1 : 0].push_back({k, static_cast<int>(t)});
        }
      }
      for (const auto& part : items) {
        if (!part.empty() && interrupt::signal() == 0) options_.isolate->run(plan_, part, emit);
      }
      return;
    }
    for (size_t t = 0; t < group.trials.size() && interrupt::signal() == 0; ++t) {
      options_.isolate->run(plan_, {{g, static_cast<int>(t)}}, emit);
    }
  }

  void run_group(size_t g) {
    GroupRun group(plan_.groups[g], options_.placement != Placement::kOff, options_.interleavings);
    const auto& trials = plan_.groups[g].trials;
    for (size_t t = 0; t < trials.size() && interrupt::signal() == 0; ++t) {
      out().on_trial_start(trials[t].id);
      if (options_.split_worker != nullptr && leaves_for_worker(trials[t])) {
        auto r = options_.split_worker->take(trials[t]);
        if (!r) break;  // interrupted before the worker reported it
        finish(*r);
        continue;
      }
      watchdog_.started(g, t);
      auto r = run_trial(group, trials[t]);
      if (interrupt::abandoned()) {  // stopped inside the subject: no verdict of its own
        watchdog_.finished([] {});
        break;
      }
      r.finalize();
      finish(r);
    }
  }

  TrialResult run_trial(GroupRun& group, const Trial& trial) {
    auto r = group.result_for(trial);
    const auto poisoned = health_.poisoned(trial.target);
    if (!group.setup_error().empty() || !trial.target.available() || !poisoned.empty()) {
      skip_trial(group, trial, poisoned, r);
      return r;
    }
    const auto& ref_target = group.group().reference_device;
    const bool on_reference_device = trial.target.device == ref_target.device;
    group.reference();  // the reference output, made before the trial's own run
    Execution scratch;
    const auto& mine = group.run(trial, scratch);
    r.duration_ms = mine.duration_ms;
    if (mine.interleaved) r.interleaving_seed = mine.interleaving_seed;
    if (const auto* ref = group.reference(); !mine.round_trip.empty()) {
      r.round_trip = mine.round_trip;
    } else if (ref != nullptr && !ref->round_trip.empty()) {
      r.round_trip = "reference: " + ref->round_trip;
    }
    health_.record(trial.target, mine, r.id);
    const auto* own_on_reference = group.subject_on_reference();
    auto run = run_verdict(mine, trial.target, on_reference_device,
                           own_on_reference != nullptr && own_on_reference->ran, ref_target.resolved_name());
    if (on_reference_device && !group.group().compares_reference_row() && mine.ran) {
      run.message += " (reference output for this group)";
    }
    warn_non_finite(mine.output, group.input(), trial.target, run);
    r.checks.push_back(run);
    dispatch_.run(group, trial, mine, on_reference_device, r);
    judge_perturbation(group, trial, mine, on_reference_device, dispatch_, r);
    judge_cuda_arithmetic(mine, r);
    return r;
  }

  // A trial that cannot run: its device is absent or poisoned, or its input
  // or parameters could not be made.
  static void skip_trial(const GroupRun& group, const Trial& trial, const std::string& poisoned, TrialResult& r) {
    std::string why = group.setup_error().empty() ? trial.target.absent_reason
                                                  : "could not prepare the trial: " + group.setup_error();
    if (!poisoned.empty()) why = poisoned;
    const auto status = group.setup_error().empty() && poisoned.empty() ? Status::kSkip : Status::kError;
    r.checks.push_back(CheckOutcome::verdict("run", status, why));
    for (const auto& [name, setting] : group.group().spec->checks) {
      r.checks.push_back(CheckOutcome::verdict(name, Status::kSkip, why));
    }
  }

  // Note [In-process timeout]: on the watchdog's thread, with its lock held.
  // `signal` 0: the trial ran past --timeout-s; else it did not return after that signal.
  [[noreturn]] void stop_stuck(size_t g, size_t t, int signal) {
    const auto& id = plan_.groups[g].trials[t].id;
    if (signal == 0) {
      auto r = unfinished_trial(plan_, g, t,
                                fmt::format("timeout: the trial ran past --timeout-s {:g} s in this process; "
                                            "the run stopped here (--isolate kills only the trial and goes on)",
                                            options_.timeout_s));
      out().on_trial_end(r);
    }
    out().on_case_end(case_info_, {});
    const auto summary =
        signal != 0 ? totals(signal, "")
                    : totals(0, fmt::format("{} ran past --timeout-s {:g} s; the results are those finished before",
                                            id, options_.timeout_s));
    try {
      out().on_run_end(summary);
    } catch (...) {
    }
    std::fflush(nullptr);
    std::_Exit(tally_.final_summary().exit_code());
  }

  const Plan& plan_;
  const RunnerOptions& options_;
  const Clock::time_point start_ = Clock::now();
  ResultTally tally_;
  std::optional<BaselineListener> baseline_;
  CheckDispatch dispatch_;
  DeviceHealth health_;
  std::map<const CaseSpec*, int64_t> planned_;
  const CaseSpec* current_ = nullptr;
  CaseInfo case_info_;
  Watchdog watchdog_;  // last: its thread stops before the rest goes
};

}  // namespace

Runner::Runner(RunListener& listener, RunnerOptions options)
    : Runner(listener, std::move(options), CheckRegistry::global()) {}

Runner::Runner(RunListener& listener, RunnerOptions options, const CheckRegistry& checks)
    : listener_(listener), options_(std::move(options)), checks_(checks) {}

RunSummary Runner::run(const Plan& plan, RunInfo info) {
  return RunPass(plan, listener_, options_, checks_).run(std::move(info));
}

}  // namespace devparity
