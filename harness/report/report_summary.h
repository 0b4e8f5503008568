#pragma once
/// A report's "summary" read back, typed: what the readers (JUnit, HTML,
/// merge, the merge command's verdict) consult instead of its keys. Read
/// leniently, as they always read it: a field a report of another version
/// lacks is empty or zero (read_report() has checked the report's shape).

#include "harness/model/results.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace devparity {

struct ReportSummary {
  StatusCounts results;                           ///< by trial
  std::map<std::string, StatusCounts> by_device;  ///< by device name
  double duration_s = 0.0;
  /// Ops found without a kernel per device type: {"meta": ["aten::conv2d"]}.
  nlohmann::json unsupported_ops = nlohmann::json::object();
  std::optional<BaselineSummary> baseline;  ///< the run was measured against one
  std::vector<Coverage::Gap> not_run;       ///< each (case, device) where a case did not run
  std::vector<std::string> ran_nowhere;     ///< the cases that ran on no device
  bool require_all = false;                 ///< --require-all: a gap fails the run

  /// --require-all asked for more than ran.
  bool coverage_unmet() const { return require_all && !not_run.empty(); }
  /// The run's verdict as its exit code gives it (RunSummary::exit_code(),
  /// an interruption aside): coverage met, and no new failure against the
  /// baseline or, without one, no failure or error at all.
  bool passed() const;

  /// The summary of `report` (its "summary" object).
  static ReportSummary of(const nlohmann::json& report);
};

}  // namespace devparity
