#include "harness/report/document.h"

#include "harness/report/packed_report.h"

#include <fmt/format.h>

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

std::vector<TrialResult> results_of(const nlohmann::json& report) {
  std::vector<TrialResult> out;
  for (const auto& r : report.value("results", nlohmann::json::array())) out.push_back(TrialResult::from_json(r));
  return out;
}

std::string Interruption::describe() const {
  const auto how = cause == "timeout"      ? std::string("stopped by its timeout")
                   : cause == "worker"     ? std::string("ended with its worker process (audit(isolate=True))")
                   : cause == "incomplete" ? std::string("merged from incomplete inputs")
                   : cause == "none"       ? std::string("ended without its report (killed or crashed)")
                                           : "interrupted by " + cause;
  if (planned == 0) return fmt::format("{}: {} trials finished", how, finished);
  return fmt::format("{}: {} of {} planned trials did not run", how, not_run(), planned);
}

std::optional<Interruption> interruption_of(const nlohmann::json& report) {
  const auto summary = report.value("summary", nlohmann::json::object());
  if (!summary.is_object() || !summary.contains("interrupted") || !summary["interrupted"].is_object()) {
    return std::nullopt;
  }
  const auto& i = summary["interrupted"];
  Interruption out;
  out.cause = i.value("signal", "signal");
  out.message = i.value("message", "");
  const auto run = report.value("run", nlohmann::json::object());
  if (run.is_object() && run.contains("planned_trials") && run["planned_trials"].is_number_integer()) {
    out.planned = run["planned_trials"].get<int64_t>();
  }
  out.finished = static_cast<int64_t>(result_count(report));
  return out;
}

}  // namespace devparity
