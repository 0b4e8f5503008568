#pragma once
/// One run from its configuration to its totals: the one place a run is
/// assembled (reporters, runner, baseline, artifacts, workers, watchdog), for
/// every front end (Note [Session]).

#include "harness/model/results.h"
#include "harness/session/run_config.h"

#include <nlohmann/json_fwd.hpp>

#include <vector>

namespace devparity {

struct DeviceInventory;
struct Suite;

/// The report's header for `config`: tool, environment and the "run" object
/// (the settings, then config.run_fields).
RunInfo session_run_info(const RunConfig& config, const DeviceInventory& inventory);

/// Plans `suites` under `config` and runs them. Before the first trial: the
/// outputs are checked and the report locked; then the console, the JSON
/// report and config.reporters report every event, and the runner runs with
/// the baseline, artifacts, workers and time limit asked for. Returns the
/// totals (exit_code() is the run's). A worker (config.worker) serves its
/// parent instead and returns empty totals. Throws UsageError, before
/// anything is written, for a configuration that cannot run: no trial
/// selected, an unknown reporter, outputs that collide, interleavings without
/// the asynchronous vdev.
RunSummary run_session(const RunConfig& config, const std::vector<Suite>& suites,
                       const DeviceInventory& inventory);

/// Reports `results`, made elsewhere (the pytest plugin's traced tests), as a
/// run of `duration_s` seconds: the same reporters, totals and report as
/// run_session() would write for them. Consecutive results of one `case`
/// form a case.
RunSummary report_session(const RunConfig& config, const std::vector<TrialResult>& results, double duration_s,
                          const DeviceInventory& inventory);

/// Writes `report`, a finished report, to the files `config` names (its JSON
/// report, then each reporter of config.reporters given a path) through the
/// reporters a session builds, as they write one at a run's end: a report
/// rebuilt after a run that never reached its end (an isolated audit's
/// worker that died). A reporter that writes no whole report is skipped.
void write_report_files(const RunConfig& config, const nlohmann::json& report);

}  // namespace devparity
