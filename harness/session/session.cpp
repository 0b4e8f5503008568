// Note [Session]
// `devparity run`, devparity.audit(), the pytest plugin's session report and
// the tests' run_suite() are front ends: each parses its own syntax (options,
// keyword arguments, ini settings) into a RunConfig and calls run_session()
// or report_session(). What a run is — the reporters in their order (the
// console first, so its summary comes after the files are written, as end
// events run in reverse), the report's "run" object, the output checks and
// the report's lock, the baseline, artifacts, workers and watchdog — is
// written here once, so a front end cannot drift from the others (the
// plugin's report once said "placement": "warn" whatever the mode).
#include "harness/session/session.h"

#include "harness/base/error.h"
#include "harness/base/interrupt.h"
#include "harness/base/output_paths.h"
#include "harness/base/text.h"
#include "harness/device/device.h"
#include "harness/device/device_kinds.h"
#include "harness/model/artifacts.h"
#include "harness/reporters/environment.h"
#include "harness/report/packed_report.h"
#include "harness/report/report_file.h"
#include "harness/reporters/reporter_registry.h"
#include "harness/run/accelerator_split.h"
#include "harness/run/result_tally.h"
#include "harness/run/runner.h"
#include "harness/run/worker_main.h"
#include "harness/run/worker_supervisor.h"
#include "harness/suite/case.h"
#include "harness/trace/tracer.h"
#include "harness/vdev/async.h"
#include "harness/vdev/mode.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <unistd.h>

namespace devparity {
namespace {

constexpr double kNoTimeoutS = 1e7;  // a worker's limit where trials have none

bool on_terminal(const ConsoleSpec& c) {
  return (c.stream == nullptr || c.stream == &std::cout) && ::isatty(STDOUT_FILENO) != 0;
}

bool use_color(const ConsoleSpec& c) {
  if (c.color == Color::kAuto) return on_terminal(c) && std::getenv("NO_COLOR") == nullptr;
  return c.color == Color::kAlways;
}

// A reporter that writes `path` (the JSON report's folder is where artifact
// paths are relative to); an empty path: standard output.
ReporterOptions file_reporter(const RunConfig& c, const std::string& path) {
  ReporterOptions file;
  file.path = path;
  file.stream = path.empty() ? &std::cout : nullptr;
  file.base_dir = c.report_folder();
  return file;
}

// The console first (end events run in reverse: its summary comes last),
// then the JSON report, then config.reporters, then the caller's listeners.
void add_reporters(const RunConfig& c, ListenerList& listeners) {
  const auto& registry = ReporterRegistry::global();
  if (c.console.show) {
    ReporterOptions console;
    console.stream = c.console.stream != nullptr ? c.console.stream : &std::cout;
    console.quiet = c.console.quiet;
    console.verbose = c.console.verbose;
    console.color = use_color(c.console);
    console.interactive = on_terminal(c.console);
    console.progress_s = c.console.progress_s;
    listeners.add(registry.make("console", console));
  }
  if (!c.report.empty()) listeners.add(registry.make("json", file_reporter(c, c.report)));
  for (const auto& asked : c.reporters) {
    if (registry.find(asked.name) == nullptr) {
      throw UsageError(fmt::format("--reporter '{}': no such reporter (registered: {})", asked.name,
                                   fmt::join(registry.names(), ", ")));
    }
    try {
      listeners.add(registry.make(asked.name, file_reporter(c, asked.path)));
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{}{}: {}", asked.option, asked.path.empty() ? "" : "=" + asked.path, e.what()));
    }
  }
  for (auto* l : c.listeners) listeners.add(*l);
}

}  // namespace

void write_report_files(const RunConfig& c, const nlohmann::json& report) {
  const auto& registry = ReporterRegistry::global();
  if (!c.report.empty()) registry.write_report("json", file_reporter(c, c.report), report);
  for (const auto& asked : c.reporters) {
    if (!asked.path.empty()) registry.write_report(asked.name, file_reporter(c, asked.path), report);
  }
}

RunInfo session_run_info(const RunConfig& c, const DeviceInventory& inventory) {
  RunInfo info;
  info.tool = describe_tool();
  auto or_null = [](const std::string& v) { return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v); };
  info.run = {{"started_at", utc_timestamp()},
              {"argv", c.argv},
              {"seed", c.plan.seed ? nlohmann::json(*c.plan.seed) : nlohmann::json(nullptr)},
              {"suites", c.suites},
              {"devices", describe_devices(c.plan.devices)},
              {"dtypes", c.dtype_names()},
              {"filter", c.plan.filter},
              {"placement", name_of(kPlacementNames, c.placement)},
              {"report", c.report},
              {"junit", or_null(c.reporter_path("junit"))},
              {"html", or_null(c.reporter_path("html"))},
              {"baseline", or_null(c.baseline)},
              {"require_all", c.require_all},
              {"isolate", or_null(name_of(kIsolationNames, c.isolation.unit))},
              {"timeout_s", c.timeout_s}};
  if (c.plan.shard_count > 1) info.run["shard"] = fmt::format("{}/{}", c.plan.shard_index, c.plan.shard_count);
  if (c.vdev_async) {
    info.run["vdev_async"] = {{"interleavings", c.interleavings},
                              {"pinned_release", vdev::async::pinned_release_name(c.pinned_release)}};
  }
  if (!c.perturb.empty()) info.run["vdev_perturb"] = c.perturb;
  if (!c.cuda_arithmetic) info.run["vdev_arithmetic"] = "cpu";
  info.run.update(c.run_fields);
  info.environment = describe_environment(inventory);
  return info;
}

namespace {

// Every file and folder the run will write, for check_output_paths.
std::vector<OutputPath> outputs_of(const RunConfig& c) {
  std::vector<OutputPath> out;
  if (!c.report.empty()) out.push_back({c.report_option, c.report, false, true});
  for (const auto& asked : c.reporters) {
    if (!asked.path.empty()) out.push_back({asked.option, asked.path});
  }
  if (c.keeps_artifacts()) {
    out.push_back({"--artifacts", (std::filesystem::path(c.report_folder()) / c.artifacts_folder()).string(), true});
  }
  return out;
}

// Where failing trials' images go, beside the report; null: nowhere.
std::unique_ptr<ArtifactStore> artifact_store(const RunConfig& c) {
  if (!c.keeps_artifacts()) return nullptr;
  return std::make_unique<ArtifactStore>(c.report_folder(), c.artifacts_folder(),
                                         static_cast<int64_t>(c.artifacts_budget_mb * 1024 * 1024));
}

// Workers started from `executable` (default: this one) with the parent's arguments.
IsolationOptions isolation_options(const RunConfig& c) {
  IsolationOptions iso;
  iso.executable = c.isolation.executable;
  if (iso.executable.empty()) {
    std::error_code ec;
    iso.executable = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) throw std::runtime_error("workers: cannot find this executable: " + ec.message());
  }
  iso.arguments = c.isolation.arguments;
  iso.timeout_s = c.timeout_s;
  iso.memory_limit_mb = c.isolation.memory_limit_mb;
  return iso;
}

std::unique_ptr<IsolatedExecutor> isolated_executor(const RunConfig& c) {
  if (c.isolation.unit == Isolation::kNone) return nullptr;
  return std::make_unique<IsolatedExecutor>(isolation_options(c));
}

// Note [One accelerator per process]: the trials that leave, in one worker
// started now; null when none leave or --isolate gives every trial a worker.
std::unique_ptr<SplitWorker> split_worker(const RunConfig& c, const Plan& plan, bool split) {
  if (!split || c.isolation.unit != Isolation::kNone) return nullptr;
  auto iso = isolation_options(c);
  if (iso.timeout_s <= 0) iso.timeout_s = kNoTimeoutS;  // as a trial in this process: no limit
  return std::make_unique<SplitWorker>(plan, std::move(iso));
}

// vdev's mode for one session (Note [vdev's mode]): its own settings,
// whatever the process ran before.
vdev::Mode vdev_mode(const RunConfig& c) {
  vdev::Mode m;
  m.async = c.vdev_async;
  m.pinned_release = c.pinned_release;
  m.cuda_arithmetic = c.cuda_arithmetic;
  m.perturb = c.perturb;
  return m;
}

// The session's reporters, built once its outputs are checked and its report
// claimed: an output that cannot be written, or that another output or
// another run also writes, would lose the run's evidence.
class SessionOutputs {
 public:
  explicit SessionOutputs(const RunConfig& c) {
    const auto outputs = outputs_of(c);
    auto inputs = c.suites;
    if (!c.baseline.empty()) inputs.push_back(c.baseline);
    for (const auto& out : outputs) check_not_an_input(out, inputs);  // it would destroy what the run reads
    check_output_paths(outputs);
    add_reporters(c, listeners_);  // an unknown reporter leaves no trace
    for (const auto& out : outputs) {
      if (!out.folder) claims_.push_back(std::make_unique<OutputClaim>(out));
    }
  }
  ListenerList& listeners() { return listeners_; }

 private:
  std::vector<std::unique_ptr<OutputClaim>> claims_;
  ListenerList listeners_;
};

void check_config(const RunConfig& c) {
  if (c.pinned_release != vdev::async::PinnedRelease::kPooled && !c.vdev_async) {
    throw UsageError("--vdev-pinned-release eager: only the asynchronous vdev has pinned copies pending; drop "
                     "--vdev-sync");
  }
  if (c.interleavings > 1 && !c.vdev_async) {
    throw UsageError(fmt::format("--interleavings {}: only the asynchronous vdev has interleavings; drop --vdev-sync",
                                 c.interleavings));
  }
}

// What a trial needs, here or in a worker (whose parent keeps the time limit
// and the baseline).
RunnerOptions trial_options(const RunConfig& c, ArtifactStore* artifacts) {
  RunnerOptions o;
  o.placement = c.placement;
  o.artifacts = artifacts;
  o.interleavings = c.interleavings;
  o.require_all = c.require_all;
  return o;
}

bool runs_family(const Plan& plan, const std::string& family) {
  for (const auto& group : plan.groups) {
    for (const auto& trial : group.trials) {
      if (trial.target.kind().family == family) return true;
    }
  }
  return false;
}

// Note [Shards]: a part of a sharded plan may hold no trial (fewer groups
// than parts); it runs and writes its report all the same, so that `devparity
// merge` finds every part. A plan with no trial in any part is an error.
bool another_part_has_trials(const std::vector<Suite>& suites, const RunConfig& c, const DeviceInventory& inventory) {
  if (c.plan.shard_count <= 1) return false;
  auto whole = c.plan;
  whole.shard_index = 0;
  whole.shard_count = 1;
  return make_plan(suites, whole, inventory).trial_count() > 0;
}

std::string no_trials_message(const RunConfig& c) {
  return fmt::format("no trials selected (suites: {}; filter: '{}'; dtypes: '{}')", fmt::join(c.suites, ", "),
                     c.plan.filter, fmt::join(c.dtype_names(), ","));
}

}  // namespace

RunSummary run_session(const RunConfig& config, const std::vector<Suite>& suites, const DeviceInventory& inventory) {
  check_config(config);
  if (config.placement != Placement::kOff) Tracer::self_test();
  const vdev::ModeScope mode(vdev_mode(config));
  auto plan = make_plan(suites, config.plan, inventory);
  if (plan.trial_count() == 0 && interrupt::signal() == 0 && !another_part_has_trials(suites, config, inventory)) {
    throw UsageError(no_trials_message(config));
  }
  if (config.max_trials > 0 && plan.trial_count() > config.max_trials) {
    throw UsageError(fmt::format("the plan has {} trials, more than --max-trials {}: narrow it with --filter, "
                                 "--dtypes, --devices or a smaller grid, or raise the cap",
                                 plan.trial_count(), config.max_trials));
  }
  if (!config.perturb.empty() && interrupt::signal() == 0 && plan.trial_count() > 0 && !runs_family(plan, "vdev")) {
    throw UsageError(fmt::format("perturbed numerics ({}) move vdev's arithmetic, and the plan has no vdev row: "
                                 "nothing would be perturbed; add a vdev device (--devices cpu,vdev:1)",
                                 fmt::join(config.perturb, ",")));
  }
  const auto artifacts = artifact_store(config);
  if (!config.worker.empty()) {
    if (artifacts) artifacts->keep_existing();
    const auto selected = select_items(plan, worker_items(plan, config.worker));
    install_kinds(selected, inventory, /*split=*/false);  // the parent never sends two accelerators
    serve_worker(selected, trial_options(config, artifacts.get()));
    return {};
  }
  const auto split = decide_split(plan, config.vdev_worker, config.isolation.workers);
  auto options = trial_options(config, artifacts.get());
  options.timeout_s = config.timeout_s;
  if (!config.baseline.empty()) {
    options.baseline = failing_checks(read_report(config.baseline));
    options.baseline_path = config.baseline;
  }
  const auto isolate = isolated_executor(config);
  SessionOutputs outputs(config);
  options.split = split == Split::kWorker;
  if (artifacts && (isolate || options.split)) artifacts->clear_stale();  // before a worker saves any
  if (isolate) {
    options.isolate = isolate.get();
    options.isolate_unit = config.isolation.unit;
  } else {
    install_kinds(plan, inventory, options.split);
  }
  const auto leaving = split_worker(config, plan, options.split);
  options.split_worker = leaving.get();
  auto info = session_run_info(config, inventory);
  if (options.split) info.run["worker_devices"] = leaving_families(plan);
  return Runner(outputs.listeners(), options).run(plan, info);
}

RunSummary report_session(const RunConfig& config, const std::vector<TrialResult>& results, double duration_s,
                          const DeviceInventory& inventory) {
  for (const auto& r : results) {  // the report schema's rule, before anything is written
    if (!is_identifier(r.case_name)) {
      throw InputError(fmt::format("result '{}': case '{}' is not an identifier ([A-Za-z0-9_])", r.id, r.case_name));
    }
  }
  SessionOutputs outputs(config);
  ResultTally tally(outputs.listeners());
  auto info = session_run_info(config, inventory);
  info.planned_trials = static_cast<int64_t>(results.size());
  tally.on_run_start(info);
  CaseInfo current;
  auto end_case = [&] {
    if (!current.name.empty()) tally.on_case_end(current, {});
  };
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (i == 0 || r.case_name != current.name) {
      end_case();
      current = {r.suite, r.case_name, r.subject, "", 0};
      for (size_t k = i; k < results.size() && results[k].case_name == r.case_name; ++k) ++current.planned_trials;
      tally.on_case_start(current);
    }
    tally.on_trial_start(r.id);
    tally.on_trial_end(r);
  }
  end_case();
  auto summary = tally.summary();
  summary.duration_s = duration_s;
  tally.on_run_end(summary);
  return tally.final_summary();
}

}  // namespace devparity
