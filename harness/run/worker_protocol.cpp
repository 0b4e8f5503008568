#include "harness/run/worker_protocol.h"

#include "harness/run/accelerator_split.h"

#include "harness/base/error.h"
#include "harness/base/text.h"
#include "harness/suite/plan.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace devparity {
namespace {

constexpr const char* kReadyLine = "{\"worker\":\"ready\"}";

}  // namespace

std::string worker_spec(const std::vector<WorkerItem>& items) {
  std::string out;
  for (const auto& i : items) {
    out += (out.empty() ? "" : ",") + std::to_string(i.group) + (i.trial >= 0 ? ":" + std::to_string(i.trial) : "");
  }
  return out;
}

std::vector<WorkerItem> parse_worker_spec(const std::string& spec) {
  std::vector<WorkerItem> out;
  size_t start = 0;
  while (start < spec.size()) {
    const auto comma = std::min(spec.find(',', start), spec.size());
    const auto piece = spec.substr(start, comma - start);
    const auto colon = piece.find(':');
    const auto g = parse_count(piece.substr(0, colon), 9);
    const auto t = colon == std::string::npos ? std::optional<int64_t>(-1) : parse_count(piece.substr(colon + 1), 9);
    if (!g || !t) throw UsageError(fmt::format("--worker '{}': expected GROUP[:TRIAL],...", spec));
    out.push_back({static_cast<size_t>(*g), static_cast<int>(*t)});
    start = comma + 1;
  }
  if (out.empty()) throw UsageError("--worker: nothing to run");
  return out;
}

std::vector<WorkerItem> worker_items(const Plan& plan, const std::string& spec) {
  return spec == kSplitSpec ? split_items(plan) : parse_worker_spec(spec);
}

Plan select_items(const Plan& plan, const std::vector<WorkerItem>& items) {
  std::map<size_t, std::set<int>> wanted;
  for (const auto& i : items) {
    if (i.group >= plan.groups.size()) {
      throw UsageError(fmt::format("--worker: group {} is not in the plan ({} groups)", i.group, plan.groups.size()));
    }
    wanted[i.group].insert(i.trial);
  }
  Plan out;
  for (const auto& [g, trials] : wanted) {
    auto group = plan.groups[g];
    if (trials.count(-1) == 0) {
      std::vector<Trial> kept;
      for (int t : trials) {
        if (t >= static_cast<int>(group.trials.size())) {
          throw UsageError(fmt::format("--worker: group {} has no trial {}", g, t));
        }
        kept.push_back(group.trials[static_cast<size_t>(t)]);
      }
      group.trials = std::move(kept);
    }
    out.groups.push_back(std::move(group));
  }
  return out;
}

std::string worker_ready_line() { return std::string(kReadyLine) + "\n"; }

std::string worker_result_line(const TrialResult& result) {
  return result.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

WorkerLine parse_worker_line(const std::string& line) {
  WorkerLine out;
  if (line == kReadyLine) {
    out.ready = true;
    return out;
  }
  try {
    out.result = TrialResult::from_json(nlohmann::json::parse(line));
  } catch (const std::exception&) {
    // a torn line from a dying worker: nothing
  }
  return out;
}

}  // namespace devparity
