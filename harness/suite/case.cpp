#include "harness/suite/case.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/interrupt.h"
#include "harness/base/phase_progress.h"
#include "harness/base/json_reader.h"
#include "harness/base/text.h"
#include "harness/checks/registry.h"
#include "harness/device/device.h"
#include "harness/subject/subject_kind.h"
#include "harness/subject/transform_registry.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace devparity {
namespace {

// Converts errors raised while reading one part of the document into
// InputErrors that carry the file position.
template <typename Fn>
auto located(const JsonDocument& doc, const std::string& base, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const FieldError& e) {
    throw InputError(doc.error(base + e.pointer(), e.what(), e.at_key()));
  } catch (const UsageError& e) {
    throw InputError(doc.error(base, e.what()));
  } catch (const InputError& e) {
    throw InputError(doc.error(base, e.what()));
  }
}

std::string value_label(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

const Transform& find_subject(const std::string& name, const std::string& pointer) {
  const auto* t = TransformRegistry::global().find(name);
  if (t == nullptr) {
    throw FieldError(pointer, fmt::format("unknown subject '{}' (known: {})", name,
                                          fmt::join(TransformRegistry::global().names(), ", ")));
  }
  return *t;
}

// A declared subject: an object whose one known key names its kind.
std::shared_ptr<const Transform> declare_subject(const nlohmann::json& value, const std::string& pointer,
                                                 const std::string& base_dir) {
  ObjectReader r(value, pointer);
  const SubjectKind* kind = nullptr;
  for (const auto& item : value.items()) {
    if (const auto* k = SubjectKindRegistry::global().find(item.key())) kind = k;
  }
  if (kind == nullptr) {
    throw FieldError(pointer, fmt::format("unknown subject kind: expected a transform name or an "
                                          "object with one of the keys {}",
                                          fmt::join(SubjectKindRegistry::global().names(), ", ")));
  }
  auto subject = kind->load(r, declaration_context(base_dir));
  r.finish();
  return subject;
}

// The case's subject: a registered name, or a declaration that loads one.
void read_subject(ObjectReader& r, CaseSpec& c, const std::string& base_dir) {
  const auto& declared = r.require("subject", "a transform name or a subject declaration");
  if (declared.is_object()) {
    c.declared_subject = declare_subject(declared, r.pointer("subject"), base_dir);
    c.subject = c.declared_subject->info().name;
  } else {
    c.subject = r.string("subject", std::nullopt);
    find_subject(c.subject, r.pointer("subject"));
  }
}

// "params" (an object) and "grid" (values to try for parameters params leaves out).
void read_params_and_grid(ObjectReader& r, CaseSpec& c) {
  if (const auto* p = r.get("params")) {
    (void)ObjectReader(*p, r.pointer("params"));  // must be an object
    c.params = *p;
  }
  const auto* g = r.get("grid");
  if (g == nullptr) return;
  ObjectReader grid(*g, r.pointer("grid"));
  for (const auto& item : g->items()) {
    if (!item.value().is_array() || item.value().empty()) {
      throw FieldError(grid.pointer(item.key()),
                       fmt::format("expected a non-empty array of values, got {}", describe_json(item.value())));
    }
    if (c.params.contains(item.key())) {
      throw FieldError(grid.pointer(item.key()),
                       fmt::format("'{}' is set both in params and in grid", item.key()), true);
    }
    c.grid.emplace_back(item.key(), item.value().get<std::vector<nlohmann::json>>());
  }
}

// "inputs": recipes with distinct labels; one default recipe when absent.
void read_inputs(ObjectReader& r, CaseSpec& c, const std::string& base_dir) {
  const auto* in = r.get("inputs");
  if (in == nullptr) {
    c.inputs.push_back(InputRecipe{});
    return;
  }
  if (!in->is_array() || in->empty()) {
    throw FieldError(r.pointer("inputs"),
                     fmt::format("expected a non-empty array of input recipes, got {}", describe_json(*in)));
  }
  std::set<std::string> labels;
  for (size_t i = 0; i < in->size(); ++i) {
    const auto p = r.pointer("inputs") + "/" + std::to_string(i);
    ObjectReader ir((*in)[i], p);
    c.inputs.push_back(read_input_recipe(ir, base_dir));
    if (!labels.insert(c.inputs.back().label()).second) {
      throw FieldError(p, fmt::format("input {} is listed twice", c.inputs.back().label()));
    }
  }
}

// "dtypes": each one the subject supports; all of them when absent.
void read_dtypes(ObjectReader& r, CaseSpec& c, const TransformInfo& info) {
  if (!r.has("dtypes")) {
    c.dtypes = info.dtypes;
    return;
  }
  const auto names = r.strings("dtypes");
  if (names.empty()) throw FieldError(r.pointer("dtypes"), "expected at least one dtype");
  for (size_t i = 0; i < names.size(); ++i) {
    const auto type = parse_dtype(names[i]);
    const auto& supported = info.dtypes;
    const auto p = r.pointer("dtypes") + "/" + std::to_string(i);
    if (!type) throw FieldError(p, fmt::format("unknown dtype '{}'", names[i]));
    if (std::find(supported.begin(), supported.end(), *type) == supported.end()) {
      std::vector<std::string> names_supported;
      for (auto s : supported) names_supported.push_back(dtype_name(s));
      throw FieldError(p, fmt::format("subject '{}' does not support {} (supports: {})", c.subject, names[i],
                                      fmt::join(names_supported, ", ")));
    }
    c.dtypes.push_back(*type);
  }
}

// "autocast": true (float16, what torch.autocast("cuda") takes by default), "float16" or
// "bfloat16" (Note [Autocast rows]). Autocast casts floating tensors, and integer outputs
// computed in a lower precision have no tolerance defined, so the rows are floating: float32
// unless "dtypes" names others.
void read_autocast(ObjectReader& r, CaseSpec& c) {
  const auto* value = r.get("autocast");
  if (value == nullptr || (value->is_boolean() && !value->get<bool>())) return;
  const auto p = r.pointer("autocast");
  if (value->is_boolean()) {
    c.autocast = c10::ScalarType::Half;
  } else if (value->is_string() && parse_dtype(value->get<std::string>()) &&
             is_half_precision(*parse_dtype(value->get<std::string>()))) {
    c.autocast = parse_dtype(value->get<std::string>());
  } else {
    throw FieldError(p, fmt::format("expected true, false, \"float16\" or \"bfloat16\", got {}", describe_json(*value)));
  }
  if (!r.has("dtypes")) {
    const bool float32 = std::find(c.dtypes.begin(), c.dtypes.end(), c10::ScalarType::Float) != c.dtypes.end();
    if (!float32) {
      throw FieldError(p, fmt::format("subject '{}' does not take float32, the dtype autocast lowers; name its "
                                      "floating dtypes in \"dtypes\"", c.subject));
    }
    c.dtypes = {c10::ScalarType::Float};
    return;
  }
  for (size_t i = 0; i < c.dtypes.size(); ++i) {
    if (!is_floating(c.dtypes[i])) {
      throw FieldError(r.pointer("dtypes") + "/" + std::to_string(i),
                       fmt::format("{} under autocast: autocast casts floating tensors, and integer outputs "
                                   "computed in a lower precision have no tolerance; give floating dtypes",
                                   dtype_name(c.dtypes[i])));
    }
  }
}

// "devices": device lists, each one this machine's inventory can resolve.
void read_devices(ObjectReader& r, CaseSpec& c, const DeviceInventory& inventory) {
  if (!r.has("devices")) return;
  c.devices = r.strings("devices");
  for (size_t i = 0; i < c.devices.size(); ++i) {
    try {
      for (const auto& t : parse_device_list(c.devices[i], inventory)) (void)t;
    } catch (const UsageError& e) {
      throw FieldError(r.pointer("devices") + "/" + std::to_string(i), e.what());
    }
  }
}

// "reference": the device (one that computes values), subject and params outputs are compared with.
void read_reference(ObjectReader& r, CaseSpec& c, const DeviceInventory& inventory) {
  const auto* ref = r.get("reference");
  if (ref == nullptr) return;
  ObjectReader rr(*ref, r.pointer("reference"));
  c.reference.device = rr.string("device", std::string("cpu"));
  const auto target = [&] {
    try {
      return resolve_device(c.reference.device, inventory);
    } catch (const UsageError& e) {
      throw FieldError(rr.pointer("device"), e.what());
    }
  }();
  if (!target.has_values()) {
    throw FieldError(rr.pointer("device"), "the reference device must compute values (meta cannot)");
  }
  c.reference.subject = rr.string("subject", std::string());
  if (!c.reference.subject.empty()) find_subject(c.reference.subject, rr.pointer("subject"));
  if (const auto* p = rr.get("params")) {
    (void)ObjectReader(*p, rr.pointer("params"));
    c.reference.params = *p;
  }
  rr.finish();
}

// One entry of "checks": false (off), true (defaults) or the check's settings.
void read_check_setting(const ObjectReader& cr, const std::string& key, const nlohmann::json& setting,
                        CaseSpec& c, const TransformInfo& info) {
  const Check* check = CheckRegistry::global().find(key);
  if (check == nullptr) {
    throw FieldError(cr.pointer(key),
                     fmt::format("unknown check '{}' (known: {})", key, fmt::join(CheckRegistry::global().names(), ", ")),
                     true);
  }
  if (setting.is_boolean() && !setting.get<bool>()) {
    c.checks.erase(key);  // off
    return;
  }
  if (!check->applies_to(info)) {
    throw FieldError(cr.pointer(key),
                     fmt::format("the {} check does not apply to {} ({} output)", key, c.subject, info.output), true);
  }
  if (!setting.is_boolean() && !setting.is_object()) {
    throw FieldError(cr.pointer(key), fmt::format("expected false (off), true (defaults) or an object of "
                                                  "settings, got {}",
                                                  describe_json(setting)));
  }
  try {
    check->validate_setting(setting);
  } catch (const FieldError& e) {
    throw FieldError(cr.pointer(key) + e.pointer(), e.what(), e.at_key());
  }
  c.checks[key] = setting;
}

// Every registered check that applies to the subject and is on by default is
// on unless "checks" turns it off.
void read_checks(ObjectReader& r, CaseSpec& c, const TransformInfo& info) {
  for (const auto* check : CheckRegistry::global().list()) {
    if (check->applies_to(info) && check->on_by_default()) c.checks[check->name()] = true;
  }
  const auto* checks = r.get("checks");
  if (checks == nullptr) return;
  ObjectReader cr(*checks, r.pointer("checks"));
  for (const auto& item : checks->items()) read_check_setting(cr, item.key(), item.value(), c, info);
}

CaseSpec read_case(const JsonDocument& doc, const std::string& pointer,
                   const std::string& base_dir, const DeviceInventory& inventory) {
  const auto& value = doc.value.at(nlohmann::json::json_pointer(pointer));
  CaseSpec c;
  c.suite = doc.path;
  c.pointer = pointer;
  located(doc, "", [&] {
    ObjectReader r(value, pointer);
    c.name = r.string("name", std::nullopt);
    if (!is_identifier(c.name)) {
      throw FieldError(r.pointer("name"),
                       fmt::format("case name '{}' must be an identifier ([A-Za-z0-9_])", c.name));
    }
    c.description = r.string("description", std::string());
    read_subject(r, c, base_dir);
    const auto& info = c.subject_transform().info();
    read_params_and_grid(r, c);
    read_inputs(r, c, base_dir);
    read_dtypes(r, c, info);
    read_autocast(r, c);
    read_devices(r, c, inventory);
    read_reference(r, c, inventory);
    read_checks(r, c, info);
    if (r.has("seed")) c.seed = static_cast<uint64_t>(r.integer("seed", 0, 0));
    r.finish();
    return 0;
  });
  return c;
}

// Samples every variant for every input shape so that parameter errors stop
// the run before it starts, at the field that caused them.
void validate_params(const JsonDocument& doc, const CaseSpec& c) {
  const Transform& subject = c.subject_transform();
  const Transform& reference = c.reference.subject.empty()
                                   ? subject
                                   : *TransformRegistry::global().find(c.reference.subject);
  const auto variants = case_variants(c);
  PhaseProgress progress(fmt::format("checking {}, case {}", doc.path, c.name), variants.size() * c.inputs.size(),
                         "variant-inputs");
  for (const auto& variant : variants) {
    if (interrupt::signal() != 0) return;  // a huge grid: the run stops with an empty, marked report
    progress.advance(c.inputs.size());
    // Named, not structured bindings: lambdas below capture them (C++17).
    const auto& label = variant.first;
    const auto& given = variant.second;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const auto& input = c.inputs[i];
      auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
      auto blame = [&](const std::string& field_pointer) {
        // A grid value or a fixed param: point at where the value came from.
        if (field_pointer.empty()) return c.pointer + "/params";
        const std::string key = field_pointer.substr(1, field_pointer.find('/', 1) - 1);
        for (size_t g = 0; g < c.grid.size(); ++g) {
          if (c.grid[g].first != key) continue;
          const auto& values = c.grid[g].second;
          const auto it = std::find(values.begin(), values.end(), given.at(key));
          return c.pointer + "/grid/" + key + "/" +
                 std::to_string(std::distance(values.begin(), it)) +
                 field_pointer.substr(1 + key.size());
        }
        return c.pointer + "/params" + field_pointer;
      };
      const std::string context =
          fmt::format(" (subject {}{}, input {})", c.subject,
                      label.empty() ? "" : "[" + label + "]", input.label());
      try {
        subject.sample(given, input.shape, gen);
      } catch (const FieldError& e) {
        throw InputError(doc.error(blame(e.pointer()), e.what() + context, e.at_key()));
      } catch (const InputError& e) {
        throw InputError(doc.error(c.pointer + "/inputs/" + std::to_string(i), e.what()));
      }
      auto ref_given = given;
      for (const auto& item : c.reference.params.items()) ref_given[item.key()] = item.value();
      try {
        reference.sample(ref_given, input.shape, gen);
      } catch (const FieldError& e) {
        throw InputError(doc.error(c.pointer + "/reference/params" + e.pointer(),
                                   e.what() + std::string(" (reference subject ") +
                                       reference.info().name + ")",
                                   e.at_key()));
      } catch (const InputError& e) {
        throw InputError(doc.error(c.pointer + "/inputs/" + std::to_string(i), e.what()));
      }
    }
  }
}

}  // namespace

std::vector<std::pair<std::string, nlohmann::json>> case_variants(const CaseSpec& spec) {
  std::vector<std::pair<std::string, nlohmann::json>> out = {{"", spec.params}};
  if (!out[0].second.is_object()) out[0].second = nlohmann::json::object();
  for (const auto& [key, values] : spec.grid) {
    std::vector<std::pair<std::string, nlohmann::json>> next;
    for (const auto& [label, params] : out) {
      for (const auto& v : values) {
        auto p = params;
        p[key] = v;
        const auto piece = key + "=" + value_label(v);
        next.emplace_back(label.empty() ? piece : label + "," + piece, std::move(p));
      }
    }
    out = std::move(next);
  }
  return out;
}

const Transform& CaseSpec::subject_transform() const {
  if (declared_subject) return *declared_subject;
  const auto* t = TransformRegistry::global().find(subject);
  if (t == nullptr) throw std::logic_error("case '" + name + "' names an unregistered subject");
  return *t;
}

Suite load_suite(const std::string& path, const DeviceInventory& inventory) {
  const auto slash = path.find_last_of('/');
  return load_suite(load_json_file(path), slash == std::string::npos ? "." : path.substr(0, slash),
                    inventory);
}

Suite load_suite(JsonDocument document, const std::string& base_dir,
                 const DeviceInventory& inventory) {
  Suite suite;
  suite.document = std::move(document);
  const auto path = suite.document.path;
  suite.path = path;
  const auto& doc = suite.document;
  std::vector<std::string> case_pointers;
  located(doc, "", [&] {
    ObjectReader r(doc.value);
    const auto slash = path.find_last_of('/');
    std::string stem = slash == std::string::npos ? path : path.substr(slash + 1);
    if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".json") stem.resize(stem.size() - 5);
    suite.name = r.string("suite", stem);
    suite.description = r.string("description", std::string());
    r.get("$schema");
    const auto& cases = r.require("cases", "an array of cases");
    if (!cases.is_array() || cases.empty()) {
      throw FieldError(r.pointer("cases"), fmt::format("expected a non-empty array of cases, got {}",
                                                       describe_json(cases)));
    }
    for (size_t i = 0; i < cases.size(); ++i) case_pointers.push_back("/cases/" + std::to_string(i));
    r.finish();
    return 0;
  });
  std::set<std::string> names;
  for (const auto& pointer : case_pointers) {
    auto c = read_case(doc, pointer, base_dir, inventory);
    if (!names.insert(c.name).second) {
      throw InputError(doc.error(pointer + "/name", fmt::format("duplicate case name '{}'", c.name)));
    }
    validate_params(doc, c);
    suite.cases.push_back(std::move(c));
  }
  return suite;
}

}  // namespace devparity
