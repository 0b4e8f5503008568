#include "harness/model/failure_groups.h"

#include "harness/base/text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace devparity {
namespace {

// "vdev:1" -> "vdev": the class a cause is shared across.
std::string device_class(const std::string& device) { return device.substr(0, device.find(':')); }

// `text` with the trial's device names (and the trial id, which messages
// often start with) replaced, so the same cause reads the same on every device.
std::string generic(std::string text, const TrialResult& r) {
  auto replace_all = [&](const std::string& what, const std::string& with) {
    if (what.empty()) return;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size())) {
      text.replace(at, what.size(), with);
    }
  };
  replace_all(r.id + ": ", "");
  replace_all(r.id, "<trial>");
  // "cpu" stays: on the CPU it is ambiguous (the host's data is there too).
  if (!r.resolved_device.empty() && r.resolved_device != "cpu") replace_all(r.resolved_device, "<device>");
  if (r.device != "cpu") replace_all(r.device, "<device>");
  return text;
}

// Note [Root cause]: one bug shows as different findings on different
// devices (a device-less arange is implicit_device_factory on the CPU and a
// device_mismatch_error where it meets device data), but every one of them
// names the line that made the offending tensor: `made_at`, or the source of
// a finding about the making itself. That line is the cause; findings with
// no line fall back to kind, op and message.
std::string origin_of(const nlohmann::json& f) {
  const auto made_at = f.value("made_at", "");
  return made_at.empty() ? f.value("source", "") : made_at;
}

// The trial's first error finding among its failing checks, as a cause; one
// with a line first.
bool finding_cause(const TrialResult& r, FailureGroup& g) {
  const nlohmann::json* lead = nullptr;
  for (const auto& check : r.checks) {
    if (check.status != Status::kFail && check.status != Status::kError) continue;
    for (const auto& f : check.findings) {
      if (f.value("severity", "") != "error") continue;
      if (lead == nullptr || (origin_of(*lead).empty() && !origin_of(f).empty())) lead = &f;
    }
  }
  if (lead == nullptr) return false;
  const auto& f = *lead;
  const auto kind = f.value("kind", ""), op = f.value("op", ""), origin = origin_of(f);
  const auto message = generic(f.value("message", ""), r);
  g.key = origin.empty() ? fmt::format("finding|{}|{}|{}", kind, op, message) : "origin|" + origin;
  g.summary = fmt::format("{}{}: {}{}", kind, op.empty() ? "" : " in " + op, message,
                          origin.empty() ? "" : " (made at " + origin + ")");
  return true;
}

}  // namespace

std::string FailureGroup::where() const {
  return fmt::format("{} trial{} on {}", ids.size(), ids.size() == 1 ? "" : "s", fmt::join(devices, ", "));
}

std::pair<size_t, bool> FailureGroups::add(const TrialResult& r) {
  if (r.status != Status::kFail && r.status != Status::kError) return {std::string::npos, false};
  FailureGroup g;
  if (!finding_cause(r, g)) {
    std::string check = "run";
    for (const auto& c : r.checks) {
      if (c.status == r.status) {
        check = c.name;
        break;
      }
    }
    g.key = fmt::format("check|{}|{}|{}|{}", check, r.subject, device_class(r.device), status_name(r.status));
    g.summary = generic(r.message, r);
  }
  ++trials_;
  auto it = std::find_if(groups_.begin(), groups_.end(), [&](const FailureGroup& x) { return x.key == g.key; });
  const bool fresh = it == groups_.end();
  if (fresh) {
    g.status = r.status;
    g.pattern = g.summary;
    groups_.push_back(std::move(g));
    it = groups_.end() - 1;
  }
  it->status = worse(it->status, r.status);
  it->ids.push_back(r.id);
  add_unique(it->devices, r.device);
  // The placeholder is for grouping; a reader sees the device, or "the device" of several.
  it->summary = it->pattern;
  const std::string device = it->devices.size() == 1 ? it->devices.front() : "the device";
  for (auto at = it->summary.find("<device>"); at != std::string::npos; at = it->summary.find("<device>", at + device.size())) {
    it->summary.replace(at, 8, device);
  }
  add_unique(it->cases, r.case_name);
  const auto index = static_cast<size_t>(it - groups_.begin());
  problem_of_.emplace(r.id, index);
  return {index, fresh};
}

std::optional<size_t> FailureGroups::problem_of(const std::string& id) const {
  const auto at = problem_of_.find(id);
  if (at == problem_of_.end()) return std::nullopt;
  return at->second;
}

std::string FailureGroups::headline() const {
  return fmt::format("{} problem{} in {} trial{}", groups_.size(), groups_.size() == 1 ? "" : "s", trials_,
                     trials_ == 1 ? "" : "s");
}

FailureGroups group_failures(const std::vector<TrialResult>& results) {
  FailureGroups groups;
  for (const auto& result : results) groups.add(result);
  return groups;
}

}  // namespace devparity
