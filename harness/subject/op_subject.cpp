#include "harness/subject/op_subject.h"

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/describe.h"
#include "harness/subject/state.h"
#include "harness/subject/subject_kind.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <map>
#include <optional>
#include <stdexcept>

namespace devparity {
namespace {

std::atomic<OpErrorMessage> g_error_message{nullptr};

// Calls `op` on `stack`; an exception goes on with the hook's message.
void call(const c10::OperatorHandle& op, std::vector<c10::IValue>& stack) {
  try {
    op.callBoxed(stack);
  } catch (const std::exception&) {
    if (const auto message = op_error_message()) throw std::runtime_error(*message);
    throw;
  }
}

c10::OperatorHandle find_op(const std::string& name) {
  const auto sep = name.find("::");
  if (sep == std::string::npos || sep == 0 || sep + 2 == name.size()) {
    throw InputError(fmt::format("'{}' is not an operator name (expected namespace::name)", name));
  }
  auto handle = c10::Dispatcher::singleton().findSchema({name, ""});
  if (!handle) {
    throw InputError(fmt::format("no operator '{}' is registered in this process (load the library "
                                 "that defines it first)", name));
  }
  return *handle;
}

// The operator's schema must be exactly `expected` in argument and return types.
void require_types(const c10::OperatorHandle& op, const std::vector<c10::TypePtr>& arguments,
                   const std::vector<c10::TypePtr>& returns, const std::string& expected) {
  const auto& schema = op.schema();
  bool ok = schema.arguments().size() == arguments.size() && schema.returns().size() == returns.size();
  for (size_t i = 0; ok && i < arguments.size(); ++i) ok = *schema.arguments()[i].type() == *arguments[i];
  for (size_t i = 0; ok && i < returns.size(); ++i) ok = *schema.returns()[i].type() == *returns[i];
  if (!ok) {
    throw InputError(fmt::format("operator {} has the schema {}; expected {}", op.schema().name(),
                                 c10::toString(schema), expected));
  }
}

// Whatever the state operator made on one device.
class OpState final : public TransformState {
 public:
  explicit OpState(std::optional<c10::OperatorHandle> state_op) : state_op_(std::move(state_op)) {
    load(c10::Device(c10::DeviceType::CPU));
  }

  void to(const c10::Device& device) override { load(device); }

  void seed_trace(TraceSeeds& seeds) const override {
    TransformState::seed_trace(seeds);
    // Operators are how Python code is audited: its factories pass the CPU
    // as the default device, and its sources name lines.
    seeds.cpu_means_default = true;
    seeds.literals_by_line = true;
    seeds.positive_device_data = true;  // Note [Neutral data]
    for (const auto& entry : kept_) seeds.kept_state.push_back(entry);
    for (const auto& entry : kept_made_at_) seeds.kept_made_at.insert(entry);
  }

 private:
  void load(const c10::Device& device) {
    if (!state_op_) return;
    std::vector<c10::IValue> stack{c10::IValue(device.str())};
    call(*state_op_, stack);
    const auto registered = stack.at(0).toTensorList();
    const auto registered_names = stack.at(1).toListRef();
    const auto kept = stack.at(2).toTensorList();
    const auto kept_names = stack.at(3).toListRef();
    if (registered.size() != registered_names.size() || kept.size() != kept_names.size()) {
      throw InputError(fmt::format("state operator {} returned {} registered tensors with {} names and {} "
                                   "kept tensors with {} names",
                                   state_op_->schema().name(), registered.size(), registered_names.size(),
                                   kept.size(), kept_names.size()));
    }
    for (size_t i = 0; i < registered.size(); ++i) {
      register_tensor(registered_names[i].toStringRef(), registered.get(i));
    }
    kept_.clear();
    for (size_t i = 0; i < kept.size(); ++i) kept_.emplace_back(kept_names[i].toStringRef(), kept.get(i));
    kept_made_at_.clear();
    if (stack.size() > 4) {  // the optional fifth result: where each kept tensor was assigned
      const auto sources = stack.at(4).toListRef();
      for (size_t i = 0; i < sources.size() && i < kept.size(); ++i) {
        if (!sources[i].toStringRef().empty()) kept_made_at_[kept_names[i].toStringRef()] = sources[i].toStringRef();
      }
    }
  }

  std::optional<c10::OperatorHandle> state_op_;
  std::vector<std::pair<std::string, at::Tensor>> kept_;
  std::map<std::string, std::string> kept_made_at_;
};

class OpSubject final : public Described<StatefulTransform> {
 public:
  OpSubject(TransformInfo info, c10::OperatorHandle op, std::optional<c10::OperatorHandle> state_op)
      : Described(std::move(info)), op_(std::move(op)), state_op_(std::move(state_op)) {}

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef, at::Generator&) const override {
    ObjectReader reader(given);
    reader.finish();  // an operator takes the image alone
    return nlohmann::json::object();
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json&) const override {
    return std::make_unique<OpState>(state_op_);
  }

  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& input, const nlohmann::json&, TransformState&) const override {
    std::vector<c10::IValue> stack{c10::IValue(input)};
    call(op_, stack);
    return stack.at(0).toTensor();
  }

 private:
  c10::OperatorHandle op_;
  std::optional<c10::OperatorHandle> state_op_;
};

std::string identifier_of(const std::string& op) {
  std::string out;
  for (char c : op.substr(op.rfind(':') + 1)) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.empty() ? "op" : out;
}

template <typename F>
auto at_field(ObjectReader& r, const char* field, F&& f) {
  try {
    return f();
  } catch (const InputError& e) {
    throw FieldError(r.pointer(field), e.what());
  }
}

class OpKind final : public SubjectKind {
 public:
  std::string name() const override { return "op"; }
  std::string description() const override {
    return "a registered operator (Tensor) -> Tensor: {\"op\": \"ns::name\", \"state\", \"dtypes\", "
           "\"differentiable\", \"random\", \"name\", \"description\"}";
  }

  std::shared_ptr<const Transform> load(ObjectReader& r, const DeclarationContext&) const override {
    const auto op_name = r.string("op", std::nullopt);
    const auto tensor = c10::TensorType::get();
    auto op = at_field(r, "op", [&] {
      auto found = find_op(op_name);
      require_types(found, {tensor}, {tensor}, "(Tensor image) -> Tensor");
      return found;
    });
    std::optional<c10::OperatorHandle> state_op;
    if (r.has("state")) {
      const auto state_name = r.string("state", std::nullopt);
      state_op = at_field(r, "state", [&] {
        auto found = find_op(state_name);
        const auto tensors = c10::ListType::ofTensors();
        const auto strings = c10::ListType::ofStrings();
        const bool with_sources = found.schema().returns().size() == 5;
        require_types(found, {c10::StringType::get()},
                      with_sources ? std::vector<c10::TypePtr>{tensors, strings, tensors, strings, strings}
                                   : std::vector<c10::TypePtr>{tensors, strings, tensors, strings},
                      "(str device) -> (Tensor[], str[], Tensor[], str[][, str[]])");
        return found;
      });
    }
    auto info = Describe(r.string("name", identifier_of(op_name)), "op",
                         r.string("description", "operator " + op_name))
                    .dtypes(read_declared_dtypes(r))
                    .differentiable(r.boolean("differentiable", false))
                    .random(r.boolean("random", false));
    return std::make_shared<OpSubject>(std::move(info), std::move(op), std::move(state_op));
  }
};

}  // namespace

void register_op_subjects(SubjectKindRegistry& registry) { registry.add(std::make_unique<OpKind>()); }

void set_op_error_message(OpErrorMessage hook) { g_error_message.store(hook); }

std::optional<std::string> op_error_message() {
  const auto hook = g_error_message.load();
  return hook == nullptr ? std::nullopt : hook();
}

}  // namespace devparity
