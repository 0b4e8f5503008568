#include "harness/model/results.h"

#include "harness/base/interrupt.h"
#include "harness/base/json_reader.h"

#include <algorithm>
#include <limits>
#include <string>

namespace devparity {
namespace {

// Lower rank wins when aggregating.
int rank(Status s) {
  switch (s) {
    case Status::kFail: return 0;
    case Status::kError: return 1;
    case Status::kPass: return 2;
    case Status::kSkip: return 3;
  }
  return 3;
}

}  // namespace

Status worse(Status a, Status b) { return rank(b) < rank(a) ? b : a; }

namespace {

Status status_from(const nlohmann::json& j, const char* key) {
  const auto s = parse_status(j.at(key).get<std::string>());
  if (!s) throw std::invalid_argument(std::string("bad status in '") + key + "'");
  return *s;
}

}  // namespace

const char* status_name(Status status) {
  switch (status) {
    case Status::kPass: return "pass";
    case Status::kFail: return "fail";
    case Status::kError: return "error";
    case Status::kSkip: return "skip";
  }
  return "error";
}

std::optional<Status> parse_status(const std::string& name) {
  for (auto s : {Status::kPass, Status::kFail, Status::kError, Status::kSkip}) {
    if (name == status_name(s)) return s;
  }
  return std::nullopt;
}

CheckOutcome CheckOutcome::verdict(std::string name, Status status, std::string message) {
  CheckOutcome c;
  c.name = std::move(name);
  c.status = status;
  c.message = std::move(message);
  return c;
}

nlohmann::json CheckOutcome::to_json() const {
  return {{"name", name},   {"status", status_name(status)}, {"message", message},
          {"describe", describe}, {"stats", stats},          {"findings", findings},
          {"artifacts", artifacts}};
}

CheckOutcome CheckOutcome::from_json(const nlohmann::json& j) {
  CheckOutcome c;
  c.name = j.at("name").get<std::string>();
  c.status = status_from(j, "status");
  c.message = j.value("message", "");
  c.describe = j.value("describe", "");
  c.stats = j.value("stats", nlohmann::json::object());
  c.findings = j.value("findings", nlohmann::json::array());
  c.artifacts = j.value("artifacts", nlohmann::json::array());
  return c;
}

const CheckOutcome* deciding_check(const std::vector<CheckOutcome>& checks) {
  const CheckOutcome* decider = nullptr;
  for (const auto& c : checks) {
    // A passing "run" says only that the subject executed; it decides the
    // verdict only when nothing else was checked (the reference row).
    if (c.name == "run" && c.status == Status::kPass && checks.size() > 1) continue;
    if (decider == nullptr || worse(decider->status, c.status) != decider->status) decider = &c;
  }
  return decider;
}

void TrialResult::finalize() {
  const auto* decider = deciding_check(checks);
  if (decider == nullptr) {
    // Only a passing run and skipped-or-absent checks: nothing was compared.
    status = Status::kSkip;
    message = "nothing was checked";
    return;
  }
  status = decider->status;
  message = decider->name + ": " + decider->message;
}

nlohmann::json TrialResult::to_json() const {
  auto checks_json = nlohmann::json::array();
  for (const auto& c : checks) checks_json.push_back(c.to_json());
  nlohmann::json j = {{"id", id},
          {"suite", suite},
          {"case", case_name},
          {"subject", subject},
          {"variant", variant},
          {"dtype", dtype},
          {"device", device},
          {"resolved_device", resolved_device},
          {"reference_device", reference_device},
          {"reference_subject", reference_subject},
          {"input", input},
          {"shape", shape},
          {"seed", seed},
          {"params", params},
          {"reference_params", reference_params},
          {"status", status_name(status)},
          {"message", message},
          {"duration_ms", duration_ms},
          {"checks", checks_json}};
  if (!baseline.empty()) j["baseline"] = baseline;
  if (interleaving_seed) j["interleaving_seed"] = *interleaving_seed;
  if (!perturbed.is_null()) j["perturbed"] = perturbed;
  if (!cuda_arithmetic.is_null()) j["cuda_arithmetic"] = cuda_arithmetic;
  if (!round_trip.empty()) j["round_trip"] = round_trip;
  if (!autocast.empty()) j["autocast"] = autocast;
  return j;
}

TrialResult TrialResult::from_json(const nlohmann::json& j) {
  TrialResult r;
  r.id = j.at("id").get<std::string>();
  r.suite = j.value("suite", "");
  r.case_name = j.at("case").get<std::string>();
  r.subject = j.at("subject").get<std::string>();
  r.variant = j.value("variant", "");
  r.dtype = j.at("dtype").get<std::string>();
  r.device = j.at("device").get<std::string>();
  r.resolved_device = j.value("resolved_device", "");
  r.reference_device = j.value("reference_device", "");
  r.reference_subject = j.value("reference_subject", "");
  r.input = j.value("input", "");
  // Integers checked, not converted: a result read back from a log may hold
  // any number there (nlohmann converts a float out of range undefinedly).
  if (j.contains("shape")) {
    for (size_t i = 0; i < j.at("shape").size(); ++i) {
      r.shape.push_back(read_integer(j.at("shape").at(i), "/shape/" + std::to_string(i), 0,
                                     std::numeric_limits<int64_t>::max()));
    }
  }
  if (j.contains("seed")) r.seed = read_unsigned(j.at("seed"), "/seed");
  r.params = j.value("params", nlohmann::json::object());
  r.reference_params = j.value("reference_params", nlohmann::json::object());
  r.status = status_from(j, "status");
  r.message = j.value("message", "");
  r.duration_ms = j.value("duration_ms", 0.0);
  r.baseline = j.value("baseline", "");
  if (j.contains("interleaving_seed")) r.interleaving_seed = read_unsigned(j.at("interleaving_seed"), "/interleaving_seed");
  if (j.contains("perturbed")) r.perturbed = j.at("perturbed");
  if (j.contains("cuda_arithmetic")) r.cuda_arithmetic = j.at("cuda_arithmetic");
  r.round_trip = j.value("round_trip", "");
  r.autocast = j.value("autocast", "");
  for (const auto& c : j.at("checks")) r.checks.push_back(CheckOutcome::from_json(c));
  return r;
}

void StatusCounts::add(Status status) {
  switch (status) {
    case Status::kPass: ++passed; break;
    case Status::kFail: ++failed; break;
    case Status::kError: ++errored; break;
    case Status::kSkip: ++skipped; break;
  }
}

nlohmann::json StatusCounts::to_json() const {
  return {{"total", total()}, {"passed", passed}, {"failed", failed}, {"errored", errored},
          {"skipped", skipped}};
}

nlohmann::json BaselineSummary::to_json() const {
  return {{"path", path}, {"known_failures", known}, {"new_failures", fresh}, {"fixed", fixed}};
}

void Coverage::add(const TrialResult& result) {
  auto [at, fresh_case] = by_case_.try_emplace(result.case_name);
  if (fresh_case) order_.push_back(result.case_name);
  auto& seen = at->second[result.device];
  if (result.status != Status::kSkip) {
    seen.ran = true;
  } else if (!seen.ran && seen.reason.empty()) {
    seen.reason = result.message;
  }
}

std::vector<Coverage::Gap> Coverage::gaps() const {
  std::vector<Gap> out;
  for (const auto& name : order_) {
    for (const auto& [device, seen] : by_case_.at(name)) {
      if (!seen.ran) out.push_back({name, device, seen.reason});
    }
  }
  return out;
}

std::vector<std::string> Coverage::ran_nowhere() const {
  std::vector<std::string> out;
  for (const auto& name : order_) {
    const auto& devices = by_case_.at(name);
    if (std::none_of(devices.begin(), devices.end(), [](const auto& d) { return d.second.ran; })) out.push_back(name);
  }
  return out;
}

nlohmann::json Coverage::to_json() const {
  auto not_run = nlohmann::json::array();
  for (const auto& g : gaps()) not_run.push_back({{"case", g.case_name}, {"device", g.device}, {"reason", g.reason}});
  return {{"not_run", std::move(not_run)}, {"ran_nowhere", ran_nowhere()}};
}

bool RunSummary::coverage_unmet() const { return require_all && !coverage.gaps().empty(); }

void RunSummary::add(const TrialResult& result) {
  coverage.add(result);
  if (baseline && result.baseline == "known") baseline->known.push_back(result.id);
  if (baseline && result.baseline == "new") baseline->fresh.push_back(result.id);
  results.add(result.status);
  by_device[result.device].add(result.status);
  for (const auto& c : result.checks) {
    by_check[c.name].add(c.status);
    if (c.stats.value("error_kind", "") != "unsupported") continue;
    const auto op = c.stats.value("op", ""), type = c.stats.value("device_type", "");
    if (op.empty() || type.empty()) continue;
    auto& ops = unsupported_ops[type];
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  }
}

int RunSummary::exit_code() const {
  if (interrupted_by != 0) return 128 + interrupted_by;
  if (coverage_unmet()) return 1;
  if (baseline) return baseline->fresh.empty() ? 0 : 1;
  return results.failed + results.errored > 0 ? 1 : 0;
}

nlohmann::json RunSummary::to_json() const {
  auto j = results.to_json();
  j["by_check"] = nlohmann::json::object();
  for (const auto& [name, counts] : by_check) j["by_check"][name] = counts.to_json();
  j["by_device"] = nlohmann::json::object();
  for (const auto& [name, counts] : by_device) j["by_device"][name] = counts.to_json();
  j["duration_s"] = duration_s;
  j["unsupported_ops"] = unsupported_ops;
  j["coverage"] = coverage.to_json();
  if (require_all) j["coverage"]["required"] = true;
  if (baseline) j["baseline"] = baseline->to_json();
  if (interrupted_by != 0) {
    j["interrupted"] = {{"signal", interrupt::signal_name(interrupted_by) ? interrupt::signal_name(interrupted_by) : std::to_string(interrupted_by)},
                        {"message", results.total() == 0
                                        ? "the run was stopped before its first trial; nothing ran"
                                        : "the run was stopped early; the results are those finished before"}};
  } else if (!stopped_because.empty()) {
    j["interrupted"] = {{"signal", "timeout"}, {"message", stopped_because}};
  }
  return j;
}

std::vector<std::string> deciding_checks(const TrialResult& result) {
  std::vector<std::string> out;
  for (const auto& c : result.checks) {
    if (c.status == result.status) out.push_back(c.name);
  }
  return out;
}

}  // namespace devparity
