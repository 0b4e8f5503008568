#pragma once
/// A run's configuration as types: what `devparity run`'s options, audit()'s
/// arguments and the pytest plugin's options all come to. Front ends parse
/// their own syntax into it; run_session() (session.h) does the rest.

#include "harness/base/named_values.h"
#include "harness/run/run_modes.h"
#include "harness/suite/plan.h"
#include "harness/vdev/async.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace devparity {

class RunListener;

/// --color.
enum class Color {
  kAuto,    ///< only on a terminal, and not when NO_COLOR is set
  kAlways,
  kNever,
};
inline constexpr NamedValue<Color> kColorNames[] = {
    {Color::kAuto, "auto"}, {Color::kAlways, "always"}, {Color::kNever, "never"}};

/// The console reporter's settings.
struct ConsoleSpec {
  bool show = true;       ///< false: no console output at all
  bool quiet = false;     ///< failures and the final line only
  bool verbose = false;   ///< a line per trial
  Color color = Color::kAuto;
  std::ostream* stream = nullptr;  ///< null: standard output
  double progress_s = 10.0;  ///< off a terminal: a progress line at least this often (0: none)
};

/// A reporter besides the JSON report.
struct ReporterSpec {
  std::string option;  ///< what asked for it, for messages ("--junit", "--reporter tap")
  std::string name;    ///< its registered name
  std::string path;    ///< its file; empty: standard output
};

/// Worker processes (--isolate, and the rows that leave a process with two
/// accelerators: Note [One accelerator per process]).
struct IsolationSpec {
  Isolation unit = Isolation::kNone;
  /// The front end can start workers of itself (the CLI); Python's audit()
  /// cannot, and its rows of a second accelerator are skipped instead.
  bool workers = false;
  /// The executable a worker runs and its arguments (Note [Workers]: the
  /// parent's command line; --worker takes precedence). Empty: this executable.
  std::string executable;
  std::vector<std::string> arguments;
  double memory_limit_mb = 0.0;  ///< RLIMIT_DATA of a worker; 0: none
};

struct RunConfig {
  // What the report's "run" object records besides the settings below.
  std::vector<std::string> argv;    ///< the command line (or the front end's name)
  std::vector<std::string> suites;  ///< the suites' paths or labels
  /// The front end's own fields of the report's "run" object, written last
  /// (audit()'s random_sweep and isolation; the plugin's start time).
  nlohmann::json run_fields = nlohmann::json::object();

  // Which trials.
  PlanOptions plan;  ///< devices, dtypes, filter, seed, shard

  // How they run.
  Placement placement = Placement::kWarn;
  IsolationSpec isolation;
  double timeout_s = 0.0;   ///< a trial's limit; 0: none
  int64_t max_trials = 0;   ///< a plan with more trials is refused before it runs (UsageError); 0: no cap
  bool vdev_async = true;   ///< vdev streams run later, in a drawn interleaving (--vdev-sync: not)
  int interleavings = 1;    ///< with vdev_async: interleavings per vdev trial
  /// With vdev_async: when pinned memory is released (--vdev-pinned-release).
  vdev::async::PinnedRelease pinned_release = vdev::async::PinnedRelease::kPooled;
  /// vdev computes CUDA's arithmetic where modelled (--vdev-arithmetic; Note [CUDA's arithmetic on vdev]).
  bool cuda_arithmetic = true;
  /// vdev's perturbed-numerics switches (--vdev-perturb); empty: none.
  std::vector<std::string> perturb;
  /// This process is a worker (--worker SPEC, Note [Workers]): it runs the
  /// trials SPEC names and writes their results to its parent, nothing else.
  std::string worker;
  /// --vdev-worker: the vdev rows run in a worker of their own even when no
  /// CUDA row runs here (Note [One accelerator per process]).
  bool vdev_worker = false;

  // Outputs.
  std::string report;  ///< the JSON report's path; empty: none
  std::string report_option = "--report";  ///< what asked for it, for messages
  ConsoleSpec console;
  std::vector<ReporterSpec> reporters;  ///< in order, after the console and the JSON report
  std::string artifacts;                ///< folder relative to the report's; empty: REPORT_STEM-artifacts
  double artifacts_budget_mb = 0.0;     ///< 0: no artifacts
  std::string baseline;                 ///< a previous report to measure failures against
  bool require_all = false;             ///< --require-all: a case that did not run everywhere fails the run
  /// Also told every event, after the reporters (tests, front ends); not owned.
  std::vector<RunListener*> listeners;

  /// The path of the first reporter named `name`, or "" (the report's "junit", "html").
  std::string reporter_path(const std::string& name) const;
  /// The report's folder: artifacts and the HTML page's images are relative to it.
  std::string report_folder() const;
  /// The artifacts folder, relative to the report's folder.
  std::string artifacts_folder() const;
  /// Failing trials' evidence is kept (a budget, and a report to keep it beside).
  bool keeps_artifacts() const { return artifacts_budget_mb > 0 && !report.empty(); }
  /// The dtypes the plan keeps, by name (empty: each case's).
  std::vector<std::string> dtype_names() const;
};

/// The color setting `name`; throws UsageError naming `what` and the choices.
Color parse_color(const std::string& name, const std::string& what);

}  // namespace devparity
