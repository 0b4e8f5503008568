#include "harness/report/report_summary.h"

namespace devparity {
namespace {

const nlohmann::json& object_at(const nlohmann::json& j, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : empty;
}

StatusCounts counts_of(const nlohmann::json& j) {
  StatusCounts c;
  c.passed = j.value("passed", int64_t{0});
  c.failed = j.value("failed", int64_t{0});
  c.errored = j.value("errored", int64_t{0});
  c.skipped = j.value("skipped", int64_t{0});
  return c;
}

}  // namespace

bool ReportSummary::passed() const {
  if (coverage_unmet()) return false;
  if (baseline) return baseline->fresh.empty();
  return results.failed + results.errored == 0;
}

ReportSummary ReportSummary::of(const nlohmann::json& report) {
  const auto& s = object_at(report, "summary");
  ReportSummary out;
  out.results = counts_of(s);
  for (const auto& [device, counts] : object_at(s, "by_device").items()) out.by_device[device] = counts_of(counts);
  out.duration_s = s.value("duration_s", 0.0);
  out.unsupported_ops = object_at(s, "unsupported_ops");
  if (s.contains("baseline")) {
    const auto& b = object_at(s, "baseline");
    out.baseline = BaselineSummary{b.value("path", ""), b.value("known_failures", std::vector<std::string>{}),
                                   b.value("new_failures", std::vector<std::string>{}),
                                   b.value("fixed", std::vector<std::string>{})};
  }
  const auto& coverage = object_at(s, "coverage");
  for (const auto& g : coverage.value("not_run", nlohmann::json::array())) {
    out.not_run.push_back({g.value("case", ""), g.value("device", ""), g.value("reason", "")});
  }
  out.ran_nowhere = coverage.value("ran_nowhere", std::vector<std::string>{});
  out.require_all = coverage.value("required", false);
  return out;
}

}  // namespace devparity
