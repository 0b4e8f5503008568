#include "harness/report/report_file.h"

#include "harness/base/error.h"
#include "harness/base/input_file.h"
#include "harness/base/json_reader.h"
#include "harness/base/json_source.h"
#include "harness/report/document.h"
#include "harness/report/packed_report.h"

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace devparity {

namespace {

// Note [Streaming report]: a run that never reached its end (kill -9, a
// crash, a power cut) leaves REPORT.partial, JSON lines: the run header,
// then one result per line, the last possibly torn. The report it stands for
// is rebuilt from the complete lines, its summary recomputed and marked
// interrupted.
std::optional<nlohmann::json> from_partial(const std::string& path, const std::string& text) {
  std::istringstream in(text);
  std::string first;
  if (!std::getline(in, first)) return std::nullopt;
  nlohmann::json header;
  try {
    header = parse_json_value(path, first);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  auto is_type = [](const nlohmann::json& j, const char* type) {
    return j.is_object() && j.contains("type") && j["type"].is_string() && j["type"] == type;
  };
  if (!is_type(header, "run_start")) return std::nullopt;
  for (const char* key : {"tool", "run", "environment"}) {
    if (!header.contains(key) || !header[key].is_object()) {
      throw InputError(fmt::format("{}:1: the run header's '{}' is not an object", path, key));
    }
  }
  RunInfo info;
  info.tool = header.value("tool", nlohmann::json::object());
  info.run = header.value("run", nlohmann::json::object());
  info.environment = header.value("environment", nlohmann::json::object());
  RunSummary summary;
  auto results = nlohmann::json::array();
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  std::string torn;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto number = i + 2;
    nlohmann::json r;
    try {
      r = parse_json_value(path, lines[i]);
    } catch (const std::exception& e) {
      // Only the last line can be cut by a kill; a bad line before it is damage.
      if (i + 1 == lines.size()) {
        torn = fmt::format("; its last line ({}) was cut and dropped", number);
        break;
      }
      throw InputError(fmt::format("{}:{}: not a complete JSON line of a streamed report: {}", path, number, e.what()));
    }
    if (!is_type(r, "result")) continue;
    r.erase("type");
    try {
      summary.add(TrialResult::from_json(r));
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}:{}: not a devparity result: {}", path, number, e.what()));
    }
    results.push_back(std::move(r));
  }
  info.planned_trials = static_cast<int64_t>(results.size());
  if (info.run.contains("planned_trials") && info.run["planned_trials"].is_number_integer()) {
    info.planned_trials = info.run["planned_trials"].get<int64_t>();
  }
  auto report = assemble_report(info, summary, std::move(results));
  report["summary"]["interrupted"] = {
      {"signal", "none"},
      {"message", "rebuilt from the streamed log of a run that did not finish (" + path + ")" + torn}};
  return report;
}

// A result that says what its own checks or id deny: a verdict that would
// turn failures green (a packed report's defaults saying "pass" over failing
// checks), or a row filed under another device or dtype than its id's.
void refuse_contradictions(const nlohmann::json& r, const TrialResult& parsed, const std::string& p,
                           const std::function<void(const std::string&, const std::string&)>& fail) {
  const auto* decider = deciding_check(parsed.checks);
  const auto decided = decider ? decider->status : Status::kSkip;
  if (decided != parsed.status) {
    fail(p + "/status", fmt::format("the result says '{}' but its checks decide '{}' ({})", status_name(parsed.status),
                                    status_name(decided),
                                    decider ? decider->name + ": " + decider->message : "nothing was checked"));
  }
  const auto spelled = trial_id_fields(parsed.id);
  if (!spelled) return;
  for (const auto& [key, value] : *spelled) {
    if (r.contains(key) && r[key].is_string() && r[key].get<std::string>() != value) {
      fail(p + "/" + key, fmt::format("'{}' contradicts the result's id '{}', which spells {} '{}'",
                                      r[key].get<std::string>(), parsed.id, key, value));
    }
  }
}

// The fields every reader relies on, of each result in full; `fail` throws.
void validate_report(const nlohmann::json& v, const std::function<void(const std::string&, const std::string&)>& fail,
                     const CheckedResultSink& sink) {
  if (!v.is_object()) fail("", "expected a report object, got " + describe_json(v));
  const auto version = v.value("schema_version", nlohmann::json());
  if (version != kReportSchemaVersion && version != kOldestReportSchemaVersion) {
    fail("/schema_version", fmt::format("report schema version {} or {} expected, got {}", kOldestReportSchemaVersion,
                                        kReportSchemaVersion, v.contains("schema_version") ? version.dump() : "none"));
  }
  for (const char* key : {"tool", "run", "environment", "summary"}) {
    if (!v.contains(key) || !v[key].is_object()) fail(std::string("/") + key, "expected an object");
  }
  if (!v.contains("results") || !v["results"].is_array()) fail("/results", "expected an array of results");
  if (version == kOldestReportSchemaVersion) {
    for (const char* key : {"shared", "skipped", "result_defaults"}) {
      if (v.contains(key)) fail(std::string("/") + key, "a packed report's field in a schema 1 report");
    }
  }
  std::unordered_map<std::string, std::string> first_of;  // id -> where: diff and baselines pair results by id
  std::map<Status, int64_t> said;                         // the results' statuses, against the summary's counts
  auto check = [&](nlohmann::json r, const std::string& p) {
    if (!r.is_object()) fail(p, "expected a result object");
    for (const char* key : {"id", "status", "case", "device", "dtype"}) {
      if (!r.contains(key) || !r[key].is_string()) fail(p + "/" + key, "expected a string");
    }
    if (const auto [it, fresh] = first_of.emplace(r["id"].get<std::string>(), p); !fresh) {
      fail(p + "/id", fmt::format("result id '{}' is given twice (first at {})", it->first, it->second));
    }
    if (!r.contains("checks") || !r["checks"].is_array()) fail(p + "/checks", "expected an array");
    for (size_t k = 0; k < r["checks"].size(); ++k) {
      const auto& c = r["checks"][k];
      const auto cp = p + "/checks/" + std::to_string(k);
      if (!c.is_object()) fail(cp, "expected a check object");
      for (const char* key : {"name", "status"}) {
        if (!c.contains(key) || !c[key].is_string()) fail(cp + "/" + key, "expected a string");
      }
      for (const char* key : {"findings", "artifacts"}) {
        if (c.contains(key) && !c[key].is_array()) fail(cp + "/" + key, "expected an array");
      }
      if (c.contains("stats") && !c["stats"].is_object()) fail(cp + "/stats", "expected an object");
    }
    TrialResult parsed;
    try {
      parsed = TrialResult::from_json(r);
    } catch (const std::exception& e) {
      fail(p, std::string("not a devparity result: ") + e.what());
    }
    refuse_contradictions(r, parsed, p, fail);
    ++said[parsed.status];
    if (sink) sink(std::move(r), parsed);
  };
  try {
    for_each_result(v, check);
  } catch (const UnpackedTooLarge&) {
    throw;  // a bound, not a malformed report: the caller names it as it is
  } catch (const PackedReportError& e) {
    fail(e.pointer(), e.what());
  }
  const auto& summary = v["summary"];
  const std::pair<const char*, Status> counts[] = {
      {"passed", Status::kPass}, {"failed", Status::kFail}, {"errored", Status::kError}, {"skipped", Status::kSkip}};
  for (const auto& [key, status] : counts) {
    if (!summary.contains(key) || !summary[key].is_number_integer()) continue;
    const auto held = said.count(status) ? said.at(status) : 0;
    if (summary[key].get<int64_t>() != held) {
      fail(std::string("/summary/") + key,
           fmt::format("the summary says {} {}, but the report's results hold {}: a report that contradicts itself "
                       "is not read",
                       summary[key].get<int64_t>(), key, held));
    }
  }
}

}  // namespace

nlohmann::json read_report(const std::string& path, const CheckedResultSink& sink) {
  return parse_report(path, read_input_file(path), sink);
}

nlohmann::json load_report(const std::string& path) {
  auto results = nlohmann::json::array();
  auto report = read_report(path, [&](nlohmann::json r, const TrialResult&) { results.push_back(std::move(r)); });
  return with_results(report, std::move(results));
}

nlohmann::json parse_report(const std::string& path, const std::string& text, const CheckedResultSink& sink) {
  if (auto rebuilt = from_partial(path, text)) {
    validate_report(
        *rebuilt,
        [&](const std::string& pointer, const std::string& what) {
          throw InputError(fmt::format("{}: {}: {} (rebuilt from a .partial log)", path, pointer, what));
        },
        sink);
    return std::move(*rebuilt);
  }
  // A report runs to millions of values: positions are indexed only to name a bad one.
  auto value = parse_json_value(path, text);
  try {
    validate_report(
        value,
        [&](const std::string& pointer, const std::string& what) {
          throw InputError(parse_json_text(path, text).error(pointer, what + " (is this a devparity report?)"));
        },
        sink);
  } catch (const UnpackedTooLarge& e) {
    throw InputError(parse_json_text(path, text).error(e.pointer(), e.what()));
  }
  return value;
}

}  // namespace devparity
