#include "harness/trace/finding.h"

#include "harness/base/text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace devparity {

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "note";
  }
  return "error";
}

std::optional<Severity> severity_from_name(const std::string& name) {
  for (const auto s : {Severity::kError, Severity::kWarning, Severity::kNote}) {
    if (name == severity_name(s)) return s;
  }
  return std::nullopt;
}

std::string Finding::describe() const {
  std::string where = fmt::format("{}", fmt::join(scopes, " > "));
  if (!where.empty()) where += ": ";
  std::string lines = source;
  if (!made_at.empty()) lines += (lines.empty() ? "made at " : "; made at ") + made_at;
  if (!met_at.empty()) lines += (lines.empty() ? "met at " : "; met at ") + met_at;
  return where + message + (lines.empty() ? "" : " [" + lines + "]") +
         (count > 1 ? fmt::format(" (x{})", count) : "");
}

std::string Finding::key() const {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", kind, op, fmt::join(scopes, ">"), message, device,
                     join_shape(shape), dtype, source, made_at, met_at);
}

nlohmann::json Finding::to_json() const {
  nlohmann::json j = {{"kind", kind},       {"severity", severity_name(severity)},
                      {"op", op},           {"scopes", scopes},
                      {"message", message}, {"device", device},
                      {"count", count}};
  if (!source.empty()) j["source"] = source;
  if (!made_at.empty()) j["made_at"] = made_at;
  if (!met_at.empty()) j["met_at"] = met_at;
  if (!shape.empty() || !dtype.empty()) {
    j["shape"] = shape;
    j["dtype"] = dtype;
  }
  return j;
}

void FindingSet::add(const Finding& finding) {
  const auto [it, added] = index_.emplace(finding.key(), items_.size());
  if (!added) {
    items_[it->second].count += finding.count;
    return;
  }
  items_.push_back(finding);
}

void FindingSet::reindex() {
  index_.clear();
  for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].key(), i);
}

void FindingSet::merge(const std::vector<Finding>& other) {
  for (const auto& f : other) add(f);
}

}  // namespace devparity
