#include "harness/report/junit.h"

#include "harness/model/failure_groups.h"
#include "harness/report/document.h"
#include "harness/report/markup.h"
#include "harness/report/report_summary.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <vector>

namespace devparity {
namespace {

std::string attribute(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + escape_markup(value) + "\"";
}

// JUnit timestamps are xs:dateTime; reports write "2026-11-22T08:30:00Z".
std::string timestamp_of(const nlohmann::json& report) {
  return report.at("run").value("started_at", "1970-01-01T00:00:00Z");
}

void properties(std::ostringstream& out, const nlohmann::json& report) {
  std::vector<std::pair<std::string, std::string>> props = {
      {"devparity.version", json_text(report["tool"].value("version", ""))},
      {"devparity.git", json_text(report["tool"].value("git", ""))},
      {"run.argv", json_text(report["run"].value("argv", nlohmann::json::array()))},
      {"run.seed", json_text(report["run"].value("seed", nlohmann::json()))},
  };
  for (const auto& [key, value] : report.at("environment").items()) {
    props.emplace_back("environment." + key, json_text(value));
  }
  out << "    <properties>\n";
  for (const auto& [name, value] : props) {
    out << "      <property" << attribute("name", name) << attribute("value", value) << "/>\n";
  }
  out << "    </properties>\n";
}

std::string first_failing_check(const TrialResult& result) {
  const auto names = deciding_checks(result);
  return names.empty() ? "run" : names.front();
}

}  // namespace

std::string check_evidence(const CheckOutcome& check) {
  std::string out = check.name + ": " + check.message;
  const auto& s = check.stats;
  std::vector<std::string> stats;
  if (s.contains("max_abs")) stats.push_back(fmt::format("max |diff| {}", json_text(s["max_abs"])));
  if (s.contains("mismatches") && s.contains("numel")) {
    stats.push_back(fmt::format("{} of {} elements outside tolerance", json_text(s["mismatches"]),
                                json_text(s["numel"])));
  }
  if (s.contains("psnr_db") && !s["psnr_db"].is_null()) {
    stats.push_back(fmt::format("PSNR {} dB", json_text(s["psnr_db"])));
  }
  if (s.contains("worst") && s["worst"].is_object()) {
    const auto& w = s["worst"];
    stats.push_back(fmt::format("worst at {}: {} vs reference {}", json_text(w.value("index", nlohmann::json())),
                                json_text(w.value("output", nlohmann::json())),
                                json_text(w.value("reference", nlohmann::json()))));
  }
  if (s.contains("tolerance") && s["tolerance"].is_object()) {
    stats.push_back("tolerance " + json_text(s["tolerance"]));
  }
  for (const auto& line : stats) out += "\n  " + line;
  const auto& findings = check.findings;
  for (size_t i = 0; i < findings.size() && i < 5; ++i) {
    const auto& f = findings[i];
    out += fmt::format("\n  [{}] {}{}{}", f.value("kind", ""), f.value("op", "").empty() ? "" : f.value("op", "") + ": ",
                       f.value("message", ""), f.value("source", "").empty() ? "" : " (" + f.value("source", "") + ")");
  }
  if (findings.size() > 5) out += fmt::format("\n  ... and {} more finding(s)", findings.size() - 5);
  return out;
}

namespace {

// Failures by cause (model/failure_groups.h): each failing testcase names
// its problem; the evidence is written out once, under the problem's first trial.
class Problems {
 public:
  explicit Problems(const std::vector<TrialResult>& results) : groups_(group_failures(results)) {}

  // The failure text of `r` (a fail or an error).
  std::string body(const TrialResult& r) const {
    const auto& id = r.id;
    std::string body;
    if (const auto at = groups_.problem_of(id)) {
      const auto& group = groups_.groups()[*at];
      body = fmt::format("problem {} of {} ({}): {} -- {}\n", *at + 1, groups_.groups().size(),
                         groups_.headline(), group.where(), group.summary);
      if (group.ids.front() != id) return body + "evidence: under " + group.ids.front();
    }
    for (const auto& check : r.checks) {
      if (check.status != r.status) continue;
      body += (body.empty() || body.back() == '\n' ? "" : "\n") + check_evidence(check);
    }
    return body;
  }

 private:
  FailureGroups groups_;
};

void write_testcase(std::ostringstream& out, const TrialResult& r, const Problems& problems) {
  const auto& id = r.id;
  const auto& case_name = r.case_name;
  // The id without its case: subject[variant]/dtype/device/input.
  const auto name = id.rfind(case_name + "/", 0) == 0 ? id.substr(case_name.size() + 1) : id;
  out << "    <testcase" << attribute("name", name) << attribute("classname", case_name)
      << attribute("time", fmt::format("{:.6f}", r.duration_ms / 1000.0));
  if (r.status == Status::kPass) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (r.status == Status::kSkip) {
    out << "      <skipped" << attribute("message", r.message) << "/>\n";
  } else {
    const char* tag = r.status == Status::kFail ? "failure" : "error";
    out << "      <" << tag << attribute("message", r.message) << attribute("type", first_failing_check(r))
        << ">" << escape_markup(problems.body(r)) << "</" << tag << ">\n";
  }
  out << "    </testcase>\n";
}

}  // namespace

std::string junit_xml(const nlohmann::json& report) { return junit_xml(report, results_of(report)); }

std::string junit_xml(const nlohmann::json& report, const std::vector<TrialResult>& results) {
  // Cases in order of first appearance.
  std::vector<std::pair<std::string, std::vector<const TrialResult*>>> cases;
  std::map<std::string, size_t> index;
  for (const auto& r : results) {
    const auto key = r.suite + "\n" + r.case_name;
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, cases.size()).first;
      cases.push_back({key, {}});
    }
    cases[it->second].second.push_back(&r);
  }
  const Problems problems(results);
  const auto summary = ReportSummary::of(report);
  const auto& counts = summary.results;
  // A run that did not finish is an error testcase of its own: a CI system
  // reading the JUnit file alone must not see green.
  const auto interruption = interruption_of(report);
  const int64_t marked = interruption ? 1 : 0;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites" << attribute("name", "devparity")
      << attribute("tests", std::to_string(counts.total() + marked))
      << attribute("failures", std::to_string(counts.failed))
      << attribute("errors", std::to_string(counts.errored + marked))
      << attribute("skipped", std::to_string(counts.skipped))
      << attribute("time", fmt::format("{:.3f}", summary.duration_s)) << ">\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& rows = cases[i].second;
    int64_t failures = 0, errors = 0, skipped = 0;
    double seconds = 0.0;
    for (const auto* r : rows) {
      failures += r->status == Status::kFail;
      errors += r->status == Status::kError;
      skipped += r->status == Status::kSkip;
      seconds += r->duration_ms / 1000.0;
    }
    const auto& first = *rows.front();
    out << "  <testsuite" << attribute("name", first.case_name) << attribute("tests", std::to_string(rows.size()))
        << attribute("failures", std::to_string(failures)) << attribute("errors", std::to_string(errors))
        << attribute("skipped", std::to_string(skipped)) << attribute("time", fmt::format("{:.6f}", seconds))
        << attribute("timestamp", timestamp_of(report))
        << attribute("hostname", report.at("environment").value("host", nlohmann::json::object()).value("hostname", "localhost"))
        << attribute("id", std::to_string(i)) << attribute("package", first.suite) << ">\n";
    properties(out, report);
    for (const auto* r : rows) write_testcase(out, *r, problems);
    out << "  </testsuite>\n";
  }
  if (interruption) {
    out << "  <testsuite" << attribute("name", "devparity run") << attribute("tests", "1") << attribute("failures", "0")
        << attribute("errors", "1") << attribute("skipped", "0") << attribute("time", "0.000000")
        << attribute("timestamp", timestamp_of(report)) << attribute("hostname", "localhost")
        << attribute("id", std::to_string(cases.size())) << attribute("package", "devparity") << ">\n";
    out << "    <testcase" << attribute("name", "run finished") << attribute("classname", "devparity run")
        << attribute("time", "0.000000") << ">\n";
    out << "      <error" << attribute("message", interruption->describe()) << attribute("type", "interrupted") << ">"
        << escape_markup(interruption->message) << "</error>\n";
    out << "    </testcase>\n  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace devparity
