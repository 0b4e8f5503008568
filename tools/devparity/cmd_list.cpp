#include "harness/base/dtype.h"
#include "harness/checks/registry.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/perturb.h"
#include "harness/trace/finding_kinds.h"
#include "harness/device/device.h"
#include "harness/reporters/reporter_registry.h"
#include "harness/suite/inputs.h"
#include "harness/subject/subject_kind.h"
#include "harness/subject/transform_registry.h"
#include "harness/suite/case.h"
#include "tools/devparity/commands.h"

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace devparity::cli {
namespace {

nlohmann::json transforms_json() {
  auto out = nlohmann::json::array();
  for (const auto* t : TransformRegistry::global().list()) {
    const auto& info = t->info();
    auto params = nlohmann::json::array();
    for (const auto& p : info.params) {
      params.push_back({{"name", p.name}, {"type", p.type}, {"default", p.default_value},
                        {"description", p.description}});
    }
    std::vector<std::string> dtypes;
    for (auto d : info.dtypes) dtypes.push_back(dtype_name(d));
    nlohmann::json entry = {{"name", info.name}, {"family", info.family}, {"description", info.description},
                            {"dtypes", dtypes}, {"random", info.random}, {"differentiable", info.differentiable},
                            {"meta", info.meta}, {"params", params}};
    if (!info.meta_note.empty()) entry["meta_note"] = info.meta_note;
    out.push_back(entry);
  }
  return out;
}

nlohmann::json devices_json(const DeviceInventory& inventory) {
  auto out = nlohmann::json::array();
  for (const auto& d : parse_device_list("auto", inventory)) {
    nlohmann::json j = {{"name", d.name}, {"present", d.available()},
                        {"values", d.has_values()}, {"simulated", d.simulated()}};
    if (d.available()) j["resolved"] = d.resolved_name();
    else j["reason"] = d.absent_reason;
    out.push_back(j);
  }
  return out;
}

nlohmann::json suites_json(const std::vector<Suite>& suites) {
  auto out = nlohmann::json::array();
  for (const auto& s : suites) {
    auto cases = nlohmann::json::array();
    for (const auto& c : s.cases) {
      std::vector<std::string> dtypes, inputs, variants;
      for (auto d : c.dtypes) dtypes.push_back(dtype_name(d));
      for (const auto& in : c.inputs) inputs.push_back(in.label());
      for (const auto& v : case_variants(c)) variants.push_back(v.first);
      nlohmann::json checks = nlohmann::json::object();
      for (const auto& [name, setting] : c.checks) checks[name] = setting;
      cases.push_back({{"name", c.name}, {"subject", c.subject}, {"description", c.description},
                       {"variants", variants}, {"inputs", inputs}, {"dtypes", dtypes},
                       {"devices", c.devices}, {"reference_device", c.reference.device},
                       {"reference_subject", c.reference.subject.empty() ? c.subject
                                                                         : c.reference.subject},
                       {"checks", checks}});
    }
    out.push_back({{"path", s.path}, {"name", s.name}, {"description", s.description},
                   {"cases", cases}});
  }
  return out;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

// The catalog table of docs/transforms.md (a test keeps that copy current).
void print_transforms_markdown(const nlohmann::json& transforms) {
  std::cout << "| Transform | Family | dtypes | Differentiable | Meta | Random | What it does |\n"
            << "|---|---|---|---|---|---|---|\n";
  for (const auto& t : transforms) {
    std::string meta = t["meta"].get<bool>() ? "yes" : "no";
    if (t.contains("meta_note")) meta += " (" + t["meta_note"].get<std::string>() + ")";
    std::cout << fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", t["name"].get<std::string>(),
                             t["family"].get<std::string>(),
                             fmt::join(t["dtypes"].get<std::vector<std::string>>(), ", "),
                             t["differentiable"].get<bool>() ? "yes" : "no", meta,
                             t["random"].get<bool>() ? "yes" : "no", escaped(t["description"].get<std::string>()));
  }
}

// An op's name as the docs say it: "aten::round_.decimals" -> "round".
std::string op_word(const std::string& op) {
  auto name = op.substr(op.find("::") == std::string::npos ? 0 : op.find("::") + 2);
  name = name.substr(0, name.find('.'));
  if (name.size() > 1 && name.back() == '_') name.pop_back();
  return name;
}

// The switch table of docs/perturbed-numerics.md (a test keeps that copy current).
void print_switches_markdown() {
  std::cout << "| switch | ops (and their in-place, out= and overload forms) | what vdev does instead of the CPU's kernel |\n"
            << "|---|---|---|\n";
  for (const auto& s : vdev::perturb::switches()) {
    std::vector<std::string> words;
    for (const auto& op : s.ops) {
      if (const auto w = op_word(op); std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
    }
    std::cout << fmt::format("| `{}` | `{}` | {} |\n", s.name, fmt::join(words, "`, `"), escaped(s.doc));
  }
}

}  // namespace

CLI::App* add_list_command(CLI::App& app, Options& o) {
  auto* list = app.add_subcommand("list", "List transforms (with parameters), checks, reporters, "
                                          "devices and the cases of suites");
  list->add_option("--suite", o.list.suites, "Case file (repeatable); default: cases/default.json");
  auto* list_json = list->add_flag("--json", o.list.json, "Machine-readable output");
  list->add_flag("--markdown{transforms}", o.list.markdown,
                 "Only one table, as the docs embed it: transforms (the default: docs/transforms.md's "
                 "catalog) or switches (docs/perturbed-numerics.md's)")
      ->check(CLI::IsMember({"transforms", "switches"}))
      ->excludes(list_json);
  add_plugin_option(*list, o);
  return list;
}

namespace {

// Every registry's entries and the suites' cases, as `list --json` prints them.
nlohmann::json listing(const DeviceInventory& inventory, const std::vector<Suite>& suites) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto* c : CheckRegistry::global().list()) {
    checks.push_back({{"name", c->name()}, {"description", c->description()}, {"on_by_default", c->on_by_default()}});
  }
  nlohmann::json reporters = nlohmann::json::array();
  for (const auto& name : ReporterRegistry::global().names()) {
    reporters.push_back({{"name", name}, {"description", ReporterRegistry::global().find(name)->description}});
  }
  nlohmann::json kinds = nlohmann::json::array();
  for (const auto* k : SubjectKindRegistry::global().list()) {
    kinds.push_back({{"name", k->name()}, {"description", k->description()}});
  }
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& k : finding_kinds()) {
    findings.push_back({{"name", k.name}, {"check", k.check}, {"severity", severity_name(k.usual)},
                        {"description", k.meaning}});
  }
  nlohmann::json perturbations = nlohmann::json::array();
  for (const auto& s : vdev::perturb::switches()) {
    perturbations.push_back({{"name", s.name}, {"description", s.doc}, {"ops", s.ops}});
  }
  nlohmann::json cuda_models = nlohmann::json::array();
  for (const auto& m : vdev::cuda_arithmetic::models()) {
    cuda_models.push_back({{"name", m.name}, {"description", m.doc}, {"ops", m.ops}, {"setting", m.setting}});
  }
  return {{"transforms", transforms_json()},
          {"subject_kinds", kinds},
          {"checks", checks},
          {"finding_kinds", findings},
          {"reporters", reporters},
          {"perturbations", perturbations},
          {"cuda_models", cuda_models},
          {"devices", devices_json(inventory)},
          {"input_patterns", input_patterns()},
          {"suites", suites_json(suites)}};
}

void print_transforms(const nlohmann::json& transforms) {
  std::cout << "transforms:\n";
  for (const auto& t : transforms) {
    std::string traits;
    if (t["random"].get<bool>()) traits += ", random";
    if (t["differentiable"].get<bool>()) traits += ", differentiable";
    if (!t["meta"].get<bool>()) traits += ", not on meta";
    std::cout << fmt::format("  {:<18} [{}] {} ({}{})\n", t["name"].get<std::string>(),
                             t["family"].get<std::string>(), t["description"].get<std::string>(),
                             fmt::join(t["dtypes"].get<std::vector<std::string>>(), ", "), traits);
    for (const auto& p : t["params"]) {
      std::cout << fmt::format("      {:<16} {} = {}: {}\n", p["name"].get<std::string>(),
                               p["type"].get<std::string>(), p["default"].get<std::string>(),
                               p["description"].get<std::string>());
    }
  }
}

// A heading, then one "name description" line per entry.
void print_named(const char* heading, const nlohmann::json& entries) {
  std::cout << heading << "\n";
  for (const auto& e : entries) {
    std::cout << fmt::format("  {:<18} {}\n", e["name"].get<std::string>(), e["description"].get<std::string>());
  }
}

void print_devices_and_suites(const nlohmann::json& all) {
  std::cout << "devices (auto):\n";
  for (const auto& d : all["devices"]) {
    std::cout << fmt::format("  {:<18} {}\n", d["name"].get<std::string>(),
                             d["present"].get<bool>() ? "present as " + d["resolved"].get<std::string>()
                                                      : "absent: " + d["reason"].get<std::string>());
  }
  std::cout << fmt::format("input patterns: {} (or an image file: {{\"file\": \"x.png|x.jpg\"}})\n",
                           fmt::join(input_patterns(), ", "));
  for (const auto& s : all["suites"]) {
    std::cout << fmt::format("suite {} ({}):\n", s["name"].get<std::string>(), s["path"].get<std::string>());
    for (const auto& c : s["cases"]) {
      std::cout << fmt::format("  {:<28} {} x {} variant(s) x {} input(s), {}\n", c["name"].get<std::string>(),
                               c["subject"].get<std::string>(), c["variants"].size(), c["inputs"].size(),
                               fmt::join(c["dtypes"].get<std::vector<std::string>>(), ", "));
    }
  }
}

}  // namespace

int cmd_list(const Options& options) {
  if (options.list.markdown == "transforms") {
    print_transforms_markdown(transforms_json());
    return 0;
  }
  if (options.list.markdown == "switches") {
    print_switches_markdown();
    return 0;
  }
  const auto inventory = DeviceInventory::probe(kDefaultVdevCount);  // the devices a default run has
  std::vector<std::string> paths = options.list.suites;
  if (paths.empty() && std::filesystem::exists(default_suite_path())) {
    paths.push_back(default_suite_path());
  }
  std::vector<Suite> suites;
  for (const auto& p : paths) suites.push_back(load_suite(p, inventory));
  const auto all = listing(inventory, suites);
  if (options.list.json) {
    std::cout << all.dump(2) << "\n";
    return 0;
  }
  print_transforms(all["transforms"]);
  print_named("declared subjects (case files: \"subject\": {KIND: ...}):", all["subject_kinds"]);
  print_named("checks:", all["checks"]);
  std::cout << "finding kinds (the check that reports them, their usual severity):\n";
  for (const auto& k : all["finding_kinds"]) {
    std::cout << fmt::format("  {:<26} {} {}: {}\n", k["name"].get<std::string>(), k["check"].get<std::string>(),
                             k["severity"].get<std::string>(), k["description"].get<std::string>());
  }
  print_named("reporters:", all["reporters"]);
  print_named("vdev's perturbed numerics (run --vdev-perturb all|LIST):", all["perturbations"]);
  print_named("vdev's models of CUDA's arithmetic (on unless run --vdev-arithmetic cpu):", all["cuda_models"]);
  print_devices_and_suites(all);
  return 0;
}

}  // namespace devparity::cli
