// placement: what the tracer found while the subject ran (trace/tracer.h).
//
// Errors (host data meeting device data where CUDA refuses it, a device-less
// factory whose tensor did, state or output left behind, a "same device"
// error) fail the check. Warnings (host syncs, copies to the device every
// call, device-dependent code) fail it only in strict mode; notes never do.
// A case may re-grade a kind ("severity"). A subject that stopped early (a
// kernel missing on meta) is skipped unless what ran before the stop already
// shows an error.

#include "harness/base/json_reader.h"
#include "harness/checks/registry.h"
#include "harness/trace/finding_kinds.h"

#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

// The kinds a case may re-grade ("severity"): the placement check's rows.
const std::vector<std::string>& kinds() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> out;
    for (const auto& row : finding_kinds()) {
      if (std::string(row.check) == "placement") out.push_back(row.name);
    }
    return out;
  }();
  return all;
}

struct PlacementSetting {
  std::string mode = "warn";
  std::map<std::string, Severity> severity;  // kind -> what the case makes it
};

PlacementSetting read_setting(const nlohmann::json& setting) {
  PlacementSetting out;
  if (setting.is_boolean()) return out;
  ObjectReader reader(setting);
  out.mode = reader.string("mode", std::string("warn"), {"warn", "strict"});
  if (const auto* severity = reader.get("severity")) {
    ObjectReader levels(*severity, reader.pointer("severity"));
    for (const auto& kind : kinds()) {
      if (!levels.has(kind)) continue;
      out.severity[kind] = *severity_from_name(levels.string(kind, std::nullopt, {"error", "warning", "note"}));
    }
    levels.finish();
  }
  reader.finish();
  return out;
}

class PlacementCheck final : public Check {
 public:
  std::string name() const override { return "placement"; }

  std::string description() const override {
    return "no tensor leaves the target device: ops traced for stray inputs, device-less "
           "factories, host syncs and copies, state and output left behind";
  }

  void validate_setting(const nlohmann::json& setting) const override { read_setting(setting); }

  bool compares_outputs() const override { return false; }

  bool applies_to(const TransformInfo&) const override { return true; }

  CheckOutcome run(const CheckContext& ctx) const override {
    CheckOutcome out;
    out.name = name();
    if (ctx.findings() == nullptr) {
      out.status = Status::kSkip;
      out.message = "placement tracing is off (--placement off)";
      return out;
    }
    auto setting = read_setting(ctx.setting);
    if (ctx.strict) setting.mode = "strict";
    const auto& mode = setting.mode;
    out.describe = mode == "strict" ? "no placement findings (strict: warnings fail too)"
                                    : "no placement errors (warnings are reported)";
    int64_t errors = 0, warnings = 0, notes = 0;
    const Finding* first_error = nullptr;
    const Finding* first_warning = nullptr;
    std::vector<Finding> findings = *ctx.findings();
    for (auto& f : findings) {
      const auto it = setting.severity.find(f.kind);
      if (it != setting.severity.end()) f.severity = it->second;
    }
    for (const auto& f : findings) {
      out.findings.push_back(f.to_json());
      if (f.severity == Severity::kNote) {
        notes += f.count;
      } else if (f.severity == Severity::kError) {
        errors += f.count;
        if (first_error == nullptr) first_error = &f;
      } else {
        warnings += f.count;
        if (first_warning == nullptr) first_warning = &f;
      }
    }
    out.stats = {{"mode", mode}, {"errors", errors}, {"warnings", warnings}, {"notes", notes},
                 {"ops_traced", ctx.execution.ops_traced}};
    const bool failing = errors > 0 || (mode == "strict" && warnings > 0);
    const auto counts = fmt::format("{} error(s), {} warning(s) in {} traced op(s)", errors,
                                    warnings, ctx.execution.ops_traced);
    if (failing) {
      const Finding& lead = first_error != nullptr ? *first_error : *first_warning;
      out.status = Status::kFail;
      out.message = fmt::format("{}: {}; first: [{}] {}", ctx.result.id, counts, lead.kind,
                                lead.describe());
    } else if (!ctx.output().defined()) {
      out.status = Status::kSkip;
      out.message = fmt::format("the subject did not complete; {} before it stopped", counts);
    } else {
      out.status = Status::kPass;
      out.message = warnings > 0 ? fmt::format("{}; first warning: [{}] {}", counts,
                                               first_warning->kind, first_warning->describe())
                     : notes > 0 ? fmt::format("no errors or warnings in {} traced op(s); {} declared "
                                               "host transfer(s)",
                                               ctx.execution.ops_traced, notes)
                                 : fmt::format("no findings in {} traced op(s)", ctx.execution.ops_traced);
    }
    return out;
  }
};

}  // namespace

void register_placement_check(CheckRegistry& registry) {
  registry.add(std::make_unique<PlacementCheck>());
}

}  // namespace devparity
