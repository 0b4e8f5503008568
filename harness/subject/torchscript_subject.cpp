#include "harness/subject/torchscript_subject.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/base/text.h"
#include "harness/device/device.h"
#include "harness/subject/generator_seed.h"
#include "harness/subject/input_source.h"
#include "harness/subject/script_source.h"
#include "harness/subject/state.h"
#include "harness/subject/subject_kind.h"
#include "harness/trace/tracer.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/import.h>

#include <fstream>
#include <mutex>
#include <set>

namespace devparity {
namespace {

// One argument of the method, after self.
struct Argument {
  enum class Kind { kImage, kTensor, kScalar, kParam };
  Kind kind = Kind::kImage;
  std::shared_ptr<const InputSource> source;  // kTensor
  std::optional<c10::ScalarType> dtype;   // kTensor; nullopt: the input's
  nlohmann::json value;                   // kScalar
  std::string param;                      // kParam
  c10::TypePtr type;                      // from the schema
};

std::string state_name(size_t index) { return fmt::format("argument{}", index); }

// The parameter holding the extra tensor arguments' seed.
constexpr const char* kSeedKey = "argument_seed";

bool is_tensor_type(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return true;
  if (const auto optional = type->cast<c10::OptionalType>()) {
    return optional->getElementType()->kind() == c10::TypeKind::TensorType;
  }
  return false;
}

// A JSON value as the IValue the schema's type wants; throws FieldError.
c10::IValue to_ivalue(const nlohmann::json& value, const c10::TypePtr& type,
                      const std::string& pointer) {
  const auto kind = type->kind();
  auto wrong = [&](const char* expected) {
    return FieldError(pointer, fmt::format("expected {} (the argument is {}), got {}", expected,
                                           type->str(), describe_json(value)));
  };
  switch (kind) {
    case c10::TypeKind::IntType:
      if (!value.is_number_integer()) throw wrong("an integer");
      return c10::IValue(value.get<int64_t>());
    case c10::TypeKind::FloatType:
      if (!value.is_number()) throw wrong("a number");
      return c10::IValue(value.get<double>());
    case c10::TypeKind::NumberType:
      if (value.is_number_integer()) return c10::IValue(value.get<int64_t>());
      if (!value.is_number()) throw wrong("a number");
      return c10::IValue(value.get<double>());
    case c10::TypeKind::BoolType:
      if (!value.is_boolean()) throw wrong("true or false");
      return c10::IValue(value.get<bool>());
    case c10::TypeKind::StringType:
      if (!value.is_string()) throw wrong("a string");
      return c10::IValue(value.get<std::string>());
    default:
      throw FieldError(pointer, fmt::format("arguments of type {} cannot be given from a case file "
                                            "(int, float, bool and str can)",
                                            type->str()));
  }
}

// Every tensor inside an attribute value (lists, tuples, dicts included).
void collect_tensors(const std::string& name, const c10::IValue& value,
                     std::vector<std::pair<std::string, at::Tensor>>& out) {
  if (value.isTensor()) {
    out.emplace_back(name, value.toTensor());
  } else if (value.isList()) {
    const auto list = value.toListRef();
    for (size_t i = 0; i < list.size(); ++i) collect_tensors(fmt::format("{}[{}]", name, i), list[i], out);
  } else if (value.isTuple()) {
    const auto& items = value.toTupleRef().elements();
    for (size_t i = 0; i < items.size(); ++i) collect_tensors(fmt::format("{}[{}]", name, i), items[i], out);
  } else if (value.isGenericDict()) {
    for (const auto& entry : value.toGenericDict()) {
      collect_tensors(fmt::format("{}[{}]", name, entry.key().tagKind()), entry.value(), out);
    }
  }
}

torch::jit::Module owner_of(torch::jit::Module module, const std::string& dotted, std::string& leaf) {
  size_t start = 0;
  for (auto dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', start)) {
    module = module.attr(dotted.substr(start, dot - start)).toModule();
    start = dot + 1;
  }
  leaf = dotted.substr(start);
  return module;
}

// Note [TorchScript state].
class ScriptState final : public TransformState {
 public:
  ScriptState(torch::jit::Module module, const std::vector<Finding>& static_findings,
              const torchscript::FactorySites& sites)
      : module_(std::move(module)), static_findings_(static_findings), sites_(sites) {
    for (const auto& p : module_.named_parameters(true)) add_module_tensor(p.name, p.value);
    for (const auto& b : module_.named_buffers(true)) add_module_tensor(b.name, b.value);
    std::vector<std::pair<std::string, at::Tensor>> tensors;
    for (const auto& a : module_.named_attributes(true)) collect_tensors(a.name, a.value, tensors);
    for (const auto& [name, tensor] : tensors) {
      if (module_tensors_.count(name) == 0) unregistered_.emplace_back(name, tensor);
    }
  }

  void to(const c10::Device& device) override {
    TransformState::to(device);
    for (const auto& [name, tensor] : tensors()) {
      if (module_tensors_.count(name) == 0) continue;
      std::string leaf;
      owner_of(module_, name, leaf).setattr(leaf, tensor);
    }
  }

  void audit(const c10::Device&, std::vector<Finding>& out) const override {
    out.insert(out.end(), static_findings_.begin(), static_findings_.end());
  }

  void seed_trace(TraceSeeds& seeds) const override {
    TransformState::seed_trace(seeds);
    // Attributes kept outside registered state stay on the CPU when the
    // module moves: an error where they meet device data, nothing where
    // they are only read on the host.
    for (const auto& entry : unregistered_) seeds.kept_state.push_back(entry);
    seeds.factory_sites.insert(sites_.all.begin(), sites_.all.end());
    seeds.deviceless_sites.insert(sites_.deviceless.begin(), sites_.deviceless.end());
    seeds.host_sites.insert(sites_.on_host.begin(), sites_.on_host.end());
  }

  torch::jit::Module& module() { return module_; }

 private:
  void add_module_tensor(const std::string& name, const at::Tensor& tensor) {
    // An Optional[Tensor] buffer left at None is nothing to move.
    if (!tensor.defined() || !module_tensors_.insert(name).second) return;
    register_tensor(name, tensor.detach());
  }

  torch::jit::Module module_;
  const std::vector<Finding>& static_findings_;
  const torchscript::FactorySites& sites_;
  std::set<std::string> module_tensors_;
  std::vector<std::pair<std::string, at::Tensor>> unregistered_;
};

class ScriptSubject final : public StatefulTransform {
 public:
  ScriptSubject(TransformInfo info, torch::jit::Module module, std::string method,
                std::vector<Argument> arguments)
      : info_(std::move(info)),
        module_(std::move(module)),
        method_(std::move(method)),
        arguments_(std::move(arguments)),
        static_findings_(torchscript::device_dependent_code(module_)),
        sites_(torchscript::factory_sites(module_)) {}

  const TransformInfo& info() const override { return info_; }

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef,
                        at::Generator& generator) const override {
    ObjectReader reader(given);
    nlohmann::json out = nlohmann::json::object();
    bool tensors = false;
    for (size_t i = 0; i < arguments_.size(); ++i) {
      const auto& a = arguments_[i];
      tensors = tensors || a.kind == Argument::Kind::kTensor;
      if (a.kind != Argument::Kind::kParam) continue;
      if (!reader.has(a.param)) {
        throw FieldError("", fmt::format("argument {} of {} ({}) takes the parameter '{}': give it "
                                         "in params or grid",
                                         i + 1, method_, a.type->str(), a.param));
      }
      (void)to_ivalue(given.at(a.param), a.type, "/" + a.param);
      out[a.param] = given.at(a.param);
    }
    // A report's parameters replay as given (devparity apply).
    const auto replayed_seed = reader.has(kSeedKey) ? std::optional<int64_t>(reader.integer(kSeedKey, std::nullopt, 0))
                                                    : std::nullopt;
    try {
      reader.finish();
    } catch (const FieldError& e) {
      throw FieldError(e.pointer(), std::string(e.what()) + " (the module's arguments take: " +
                                        param_names() + ")",
                       true);
    }
    if (tensors && replayed_seed) {
      out[kSeedKey] = *replayed_seed;
    } else if (tensors) {
      // The extra tensors' seed: drawn, so that it is a parameter, replayed
      // on every device like any other.
      out[kSeedKey] = draw_seed(generator);
    }
    return out;
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json& params) const override {
    return make_state(params, c10::ScalarType::Float);
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json& params,
                                             c10::ScalarType input_dtype) const override {
    auto state = std::make_unique<ScriptState>(module_.deepcopy(), static_findings_, sites_);
    for (size_t i = 0; i < arguments_.size(); ++i) {
      const auto& a = arguments_[i];
      if (a.kind != Argument::Kind::kTensor) continue;
      const auto seed = params.at(kSeedKey).get<uint64_t>() + i;
      state->register_tensor(state_name(i), a.source->make(a.dtype.value_or(input_dtype), seed));
    }
    return state;
  }

  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& input, const nlohmann::json& params,
                   TransformState& state) const override {
    auto& script = static_cast<ScriptState&>(state);
    std::vector<c10::IValue> stack;
    for (size_t i = 0; i < arguments_.size(); ++i) {
      const auto& a = arguments_[i];
      switch (a.kind) {
        case Argument::Kind::kImage: stack.emplace_back(input); break;
        case Argument::Kind::kTensor: stack.emplace_back(state.tensor(state_name(i))); break;
        case Argument::Kind::kScalar: stack.push_back(to_ivalue(a.value, a.type, "")); break;
        case Argument::Kind::kParam: stack.push_back(to_ivalue(params.at(a.param), a.type, "")); break;
      }
    }
    auto result = script.module().get_method(method_)(std::move(stack));
    if (!result.isTensor()) {
      throw std::runtime_error(fmt::format("{} returned {}, not a Tensor", method_,
                                           result.type()->str()));
    }
    return result.toTensor();
  }

 private:
  std::string param_names() const {
    std::vector<std::string> names;
    for (const auto& a : arguments_) {
      if (a.kind == Argument::Kind::kParam) names.push_back(a.param);
    }
    return names.empty() ? "no parameters" : fmt::format("{}", fmt::join(names, ", "));
  }

  TransformInfo info_;
  torch::jit::Module module_;
  std::string method_;
  std::vector<Argument> arguments_;
  std::vector<Finding> static_findings_;
  torchscript::FactorySites sites_;
};

std::string signature(const std::string& method, const c10::FunctionSchema& schema) {
  std::vector<std::string> args;
  for (size_t i = 1; i < schema.arguments().size(); ++i) {
    const auto& a = schema.arguments()[i];
    args.push_back(fmt::format("{}: {}{}", a.name(), a.type()->str(), a.default_value() ? " = ..." : ""));
  }
  std::vector<std::string> returns;
  for (const auto& r : schema.returns()) returns.push_back(r.type()->str());
  return fmt::format("{}({}) -> {}", method, fmt::join(args, ", "), fmt::join(returns, ", "));
}

std::vector<Argument> read_arguments(ObjectReader& r, const DeclarationContext& context) {
  std::vector<Argument> out;
  const auto* given = r.get("arguments");
  if (given == nullptr) {
    out.emplace_back();
    return out;
  }
  if (!given->is_array() || given->empty()) {
    throw FieldError(r.pointer("arguments"), fmt::format("expected a non-empty array of arguments, "
                                                         "got {}", describe_json(*given)));
  }
  int images = 0;
  for (size_t i = 0; i < given->size(); ++i) {
    const auto& g = (*given)[i];
    const auto p = r.pointer("arguments") + "/" + std::to_string(i);
    Argument a;
    if (g.is_string() && g.get<std::string>() == "image") {
      ++images;
    } else if (g.is_object()) {
      ObjectReader ar(g, p);
      if (const auto* t = ar.get("tensor")) {
        a.kind = Argument::Kind::kTensor;
        ObjectReader tr(*t, ar.pointer("tensor"));
        a.source = context.read_input(tr);
        const auto dtype = ar.string("dtype", std::string("input"));
        if (dtype != "input") {
          a.dtype = parse_dtype(dtype);
          if (!a.dtype) throw FieldError(ar.pointer("dtype"), fmt::format("unknown dtype '{}'", dtype));
        }
      } else if (const auto* v = ar.get("scalar")) {
        a.kind = Argument::Kind::kScalar;
        a.value = *v;
      } else if (ar.has("param")) {
        a.kind = Argument::Kind::kParam;
        a.param = ar.string("param", std::nullopt);
      } else {
        throw FieldError(p, "expected \"image\", {\"tensor\": recipe}, {\"scalar\": value} or "
                            "{\"param\": name}");
      }
      ar.finish();
    } else {
      throw FieldError(p, fmt::format("expected \"image\", {{\"tensor\": recipe}}, {{\"scalar\": "
                                      "value}} or {{\"param\": name}}, got {}",
                                      describe_json(g)));
    }
    out.push_back(std::move(a));
  }
  if (images != 1) {
    throw FieldError(r.pointer("arguments"),
                     fmt::format("exactly one argument must be \"image\" (the audited input), "
                                 "found {}", images));
  }
  return out;
}

// Checks the declared arguments against the method's schema and records the
// types; throws FieldError naming the signature.
void match_schema(std::vector<Argument>& arguments, const c10::FunctionSchema& schema,
                  const std::string& method, ObjectReader& r, bool declared) {
  const auto sig = signature(method, schema);
  const auto& formal = schema.arguments();
  const size_t takes = formal.size() - 1;
  const auto where = declared ? r.pointer("arguments") : r.pointer("torchscript");
  if (arguments.size() > takes) {
    throw FieldError(where, fmt::format("{} takes {} argument(s) after self, the case gives {}: {}",
                                        method, takes, arguments.size(), sig));
  }
  for (size_t i = arguments.size(); i < takes; ++i) {
    if (!formal[i + 1].default_value()) {
      throw FieldError(where, fmt::format("{} takes {} argument(s) after self, the case gives {} "
                                          "and '{}' has no default: {}",
                                          method, takes, arguments.size(), formal[i + 1].name(), sig));
    }
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    auto& a = arguments[i];
    a.type = formal[i + 1].type();
    const auto p = declared ? where + "/" + std::to_string(i) : where;
    const bool tensor = a.kind == Argument::Kind::kImage || a.kind == Argument::Kind::kTensor;
    if (tensor != is_tensor_type(a.type)) {
      throw FieldError(p, fmt::format("argument '{}' of {} is {}, the case gives {}: {}",
                                      formal[i + 1].name(), method, a.type->str(),
                                      tensor ? "a tensor" : "a scalar", sig));
    }
    if (a.kind == Argument::Kind::kScalar) (void)to_ivalue(a.value, a.type, p + "/scalar");
  }
  if (schema.returns().size() != 1 || !is_tensor_type(schema.returns()[0].type())) {
    throw FieldError(r.pointer(declared ? "method" : "torchscript"),
                     fmt::format("{} must return one Tensor: {}", method, sig));
  }
}

std::string identifier_from(const std::string& path) {
  const auto stem = file_stem_identifier(path);
  return stem.empty() ? "torchscript" : stem;
}

class TorchScriptKind final : public SubjectKind {
 public:
  std::string name() const override { return "torchscript"; }
  std::string description() const override {
    return "a scripted module from a .pt archive: {\"torchscript\": \"m.pt\", \"method\", "
           "\"arguments\", \"output\", \"dtypes\", \"differentiable\", \"name\"}";
  }

  std::shared_ptr<const Transform> load(ObjectReader& r, const DeclarationContext& context) const override {
    const auto given_path = r.string("torchscript", std::nullopt);
    const auto path = resolve_path(context.base_dir, given_path);
    if (!std::ifstream(path).good()) {
      throw FieldError(r.pointer("torchscript"), fmt::format("cannot read '{}'", path));
    }
    TransformInfo info;
    info.name = r.string("name", identifier_from(given_path));
    info.family = "torchscript";
    info.output = r.string("output", std::string("image"), {"image", "jpeg"});
    info.differentiable = r.boolean("differentiable", false);
    info.dtypes = read_declared_dtypes(r);
    const auto method = r.string("method", std::string("forward"));
    const bool declared = r.has("arguments");
    auto arguments = read_arguments(r, context);

    torch::jit::Module module;
    try {
      // Note [TorchScript state]: on the CPU, whatever the audit's devices.
      module = torch::jit::load(path, c10::Device(c10::DeviceType::CPU));
    } catch (const std::exception& e) {
      const auto why = classify_exception(e).message;
      const bool custom_op = why.find("Unknown builtin op") != std::string::npos;
      throw FieldError(r.pointer("torchscript"),
                       fmt::format("cannot load '{}' as a TorchScript module: {}{}", path, why,
                                   custom_op ? " (a custom operator: load the library that "
                                               "registers it with --plugin)"
                                             : ""));
    }
    module.eval();
    const auto found = module.find_method(method);
    if (!found) {
      std::vector<std::string> names;
      for (const auto& m : module.get_methods()) names.push_back(m.name());
      throw FieldError(r.pointer("method"), fmt::format("the module has no method '{}' (it has: {})",
                                                        method, fmt::join(names, ", ")));
    }
    match_schema(arguments, found->function().getSchema(), method, r, declared);
    info.description = fmt::format("TorchScript {}::{}", given_path, method);
    for (const auto& a : arguments) {
      if (a.kind == Argument::Kind::kParam) info.params.push_back({a.param, a.type->str(), "required", "argument of " + method});
      if (a.kind == Argument::Kind::kTensor && !info.random) {
        info.random = true;
        info.params.push_back({kSeedKey, "integer >= 0", "drawn", "seed of the extra tensor arguments"});
      }
    }
    return std::make_shared<ScriptSubject>(std::move(info), std::move(module), method, std::move(arguments));
  }

 private:
  static std::string resolve_path(const std::string& base_dir, const std::string& path) {
    if (path.empty() || path[0] == '/' || base_dir.empty()) return path;
    return base_dir + "/" + path;
  }
};

}  // namespace

void register_torchscript_subjects(SubjectKindRegistry& registry) {
  registry.add(std::make_unique<TorchScriptKind>());
  set_source_locator(&torchscript::current_location);
}

}  // namespace devparity
