#pragma once
/// The report document: assembled once from the run's header, totals and
/// results, and the base of every reporter that writes a whole file at the
/// end (JSON, JUnit, HTML), so that they all describe the same run.

#include "harness/model/run_listener.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace devparity {

/// reports/schema/report.schema.json's version: 2 packs the file (Note [Packed report]).
constexpr int kReportSchemaVersion = 2;
/// The oldest version read back (diff, merge, html, --baseline).
constexpr int kOldestReportSchemaVersion = 1;

/// The report: schema_version, tool, run (with duration and planned trials),
/// environment, summary and results.
nlohmann::json assemble_report(const RunInfo& info, const RunSummary& summary,
                               nlohmann::json results);

/// A run that did not finish (a signal, --timeout-s for the run), as its
/// report says: every format marks it, so that no reader takes it for green.
struct Interruption {
  /// "SIGINT", "SIGTERM", "timeout", "none" (rebuilt from a .partial log),
  /// "incomplete" (a merge), "worker" (an isolated audit's worker died)
  std::string cause;
  std::string message;
  int64_t planned = 0;     ///< trials the run meant to report (0: unknown)
  int64_t finished = 0;    ///< results it holds
  /// Planned trials without a result.
  int64_t not_run() const { return planned > finished ? planned - finished : 0; }
  /// "interrupted by SIGINT: 12 of 40 planned trials did not run".
  std::string describe() const;
};

/// A whole report's results (assembled, or read back in full: load_report()),
/// each as TrialResult::from_json reads it: what the readers that render or
/// compare them consult.
std::vector<TrialResult> results_of(const nlohmann::json& report);

/// The report's interruption; empty for a run that finished.
std::optional<Interruption> interruption_of(const nlohmann::json& report);

/// Collects the run's results and hands the assembled report to write() when
/// the run ends: the base of every reporter that writes the whole report at
/// the end (JSON, JUnit, HTML).
class ReportCollector : public RunListener {
 public:
  void on_run_start(const RunInfo& info) override { info_ = info; }
  void on_trial_end(const TrialResult& result) override { collect(result); }
  void on_run_end(const RunSummary& summary) override {
    write(assemble_report(info_, summary, std::move(results_)));
    results_ = nlohmann::json::array();
  }
  /// Writes a finished report in the reporter's format: the one this run
  /// assembled, or one rebuilt after a run that never reached its end
  /// (ReporterRegistry::write_report).
  virtual void write(const nlohmann::json& report) = 0;

 protected:
  const RunInfo& info() const { return info_; }
  /// Keeps `result` for the report; returns its JSON form as kept.
  const nlohmann::json& collect(const TrialResult& result) {
    results_.push_back(result.to_json());
    return results_.back();
  }

 private:
  RunInfo info_;
  nlohmann::json results_ = nlohmann::json::array();
};

}  // namespace devparity
