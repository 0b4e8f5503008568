#include "harness/report/merge.h"

#include "harness/base/error.h"
#include "harness/model/results.h"
#include "harness/report/document.h"
#include "harness/report/packed_report.h"
#include "harness/report/report_file.h"
#include "harness/report/report_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace devparity {

namespace {

// "I/N" as run --shard writes it; nullopt for anything else.
std::optional<std::pair<int, int>> shard_of(const nlohmann::json& report) {
  const auto run = report.value("run", nlohmann::json::object());
  if (!run.is_object() || !run.contains("shard") || !run["shard"].is_string()) return std::nullopt;
  const auto text = run["shard"].get<std::string>();
  int index = -1;
  int count = 0;
  char end = 0;
  if (std::sscanf(text.c_str(), "%d/%d%c", &index, &count, &end) != 2 || index < 0 || index >= count) {
    return std::nullopt;
  }
  return std::make_pair(index, count);
}

// Reports of one devparity version and report schema, or an InputError naming both.
void require_same_writer(const std::string& first_path, const nlohmann::json& first, const std::string& path,
                         const nlohmann::json& report) {
  const auto version = first.at("tool").value("version", ""), v = report.at("tool").value("version", "");
  if (v != version) {
    throw InputError(fmt::format("merge: {} was written by devparity {} and {} by devparity {}; "
                                 "merge reports of one version",
                                 first_path, version, path, v));
  }
  if (report.at("schema_version") != first.at("schema_version")) {
    throw InputError(fmt::format("merge: {} has report schema {} and {} schema {}", first_path,
                                 first.at("schema_version").dump(), path, report.at("schema_version").dump()));
  }
}

// What keeps the inputs from being a whole run, one line each.
std::vector<std::string> merge_gaps(const std::vector<MergeInput>& reports) {
  std::vector<std::string> gaps;
  std::set<int> shards;
  std::optional<std::pair<std::string, int>> split;  // (first path, N)
  for (const auto& [path, report, results, parsed] : reports) {
    if (const auto interruption = interruption_of(report)) {
      gaps.push_back(fmt::format("{} is of a run that did not finish ({}{}{})", path, interruption->describe(),
                                 interruption->message.empty() ? "" : "; ", interruption->message));
    }
    const auto shard = shard_of(report);
    if (!shard) continue;
    if (split && split->second != shard->second) {
      throw InputError(fmt::format("merge: {} is a shard of {} and {} of {}: merge the shards of one split",
                                   split->first, split->second, path, shard->second));
    }
    if (!split) split = std::make_pair(path, shard->second);
    shards.insert(shard->first);
  }
  if (split) {
    for (int i = 0; i < split->second; ++i) {
      if (!shards.count(i)) gaps.push_back(fmt::format("shard {}/{} is missing", i, split->second));
    }
  }
  return gaps;
}

}  // namespace

nlohmann::json merge_reports(const std::vector<std::pair<std::string, nlohmann::json>>& reports) {
  std::vector<MergeInput> inputs;
  for (const auto& [path, report] : reports) {
    MergeInput in{path, report, {}, {}};
    for_each_result(report, [&](nlohmann::json r, const std::string&) {
      in.parsed.push_back(TrialResult::from_json(r));
      in.results.push_back(std::move(r));
    });
    inputs.push_back(std::move(in));
  }
  return merge_inputs(std::move(inputs));
}

MergeInput read_merge_input(const std::string& path) {
  MergeInput in;
  in.path = path;
  in.report = read_report(path, [&](nlohmann::json r, const TrialResult& parsed) {
    in.results.push_back(std::move(r));
    in.parsed.push_back(parsed);
  });
  return in;
}

nlohmann::json merge_inputs(std::vector<MergeInput> reports) {
  if (reports.empty()) throw InputError("merge: no reports given");
  const auto& first_path = reports.front().path;
  const auto& first = reports.front().report;
  std::map<std::string, std::string> owner;  // id -> path
  RunSummary summary;
  nlohmann::json results = nlohmann::json::array();
  nlohmann::json merged_from = nlohmann::json::array();
  nlohmann::json environments = nlohmann::json::array();
  bool environments_differ = false;
  std::optional<BaselineSummary> baseline;
  for (auto& [path, report, in_results, parsed] : reports) {
    require_same_writer(first_path, first, path, report);
    merged_from.push_back({{"path", path}, {"shard", report.at("run").value("shard", nlohmann::json())},
                           {"started_at", report.at("run").value("started_at", "")}});
    environments.push_back(report.at("environment"));
    environments_differ = environments_differ || report.at("environment") != first.at("environment");
    for (size_t i = 0; i < in_results.size(); ++i) {
      const auto [it, inserted] = owner.emplace(parsed[i].id, path);
      if (!inserted) {
        throw InputError(fmt::format("merge: result '{}' is in both {} and {}: shards must not "
                                     "overlap (same suites, filter and dtypes, different --shard I/N)",
                                     parsed[i].id, it->second, path));
      }
      summary.add(parsed[i]);
      results.push_back(std::move(in_results[i]));
    }
    const auto s = ReportSummary::of(report);
    summary.duration_s += s.duration_s;
    // The parts of a --require-all run: the merged one is judged as the whole run would be.
    summary.require_all = summary.require_all || s.require_all;
    for (const auto& [device, ops] : s.unsupported_ops.items()) {
      for (const auto& op : ops) {
        auto& list = summary.unsupported_ops[device];  // results name theirs; older reports only here
        if (std::find(list.begin(), list.end(), op) == list.end()) list.push_back(op);
      }
    }
    if (s.baseline) {
      if (!baseline) baseline = BaselineSummary{s.baseline->path, {}, {}, {}};
      for (const auto& id : s.baseline->known) baseline->known.push_back(id);
      for (const auto& id : s.baseline->fresh) baseline->fresh.push_back(id);
      for (const auto& id : s.baseline->fixed) baseline->fixed.push_back(id);
    }
  }
  summary.baseline = baseline;
  RunInfo info;
  info.tool = first.at("tool");
  info.environment = first.at("environment");
  info.run = first.at("run");
  info.run.erase("shard");
  info.run["merged_from"] = merged_from;
  if (environments_differ) info.run["merged_environments"] = environments;
  int64_t planned = 0;
  for (const auto& in : reports) planned += in.report.at("run").value("planned_trials", int64_t{0});
  info.planned_trials = planned;
  auto out = assemble_report(info, summary, std::move(results));
  out["run"]["duration_s"] = summary.duration_s;
  if (const auto gaps = merge_gaps(reports); !gaps.empty()) {
    // The first input's cause, else the merge's own: a shard is missing.
    nlohmann::json interrupted = {{"signal", "incomplete"}};
    for (const auto& in : reports) {
      if (const auto interruption = interruption_of(in.report)) {
        interrupted["signal"] = interruption->cause;
        break;
      }
    }
    interrupted["message"] = fmt::format("merged from incomplete inputs: {}", fmt::join(gaps, "; "));
    interrupted["gaps"] = gaps;
    out["summary"]["interrupted"] = interrupted;
  }
  return out;
}

}  // namespace devparity
