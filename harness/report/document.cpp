#include "harness/report/document.h"

namespace devparity {

nlohmann::json assemble_report(const RunInfo& info, const RunSummary& summary,
                               nlohmann::json results) {
  auto run = info.run;
  run["duration_s"] = summary.duration_s;
  run["planned_trials"] = info.planned_trials;
  return {{"schema_version", kReportSchemaVersion},
          {"tool", info.tool},
          {"run", run},
          {"environment", info.environment},
          {"summary", summary.to_json()},
          {"results", std::move(results)}};
}

}  // namespace devparity
