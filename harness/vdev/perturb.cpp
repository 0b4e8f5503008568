// The registry of perturbed-numerics switches and the kernel choice (Note
// [Perturbed numerics] in vdev/perturb.h).
#include "harness/vdev/perturb.h"

#include "harness/rules/op_arguments.h"
#include "harness/vdev/cuda_arithmetic.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>

namespace devparity::vdev::perturb {
namespace {

std::vector<Switch>& registry() {
  static std::vector<Switch> all;
  return all;
}

// The switches on, by op name; read on every vdev op while any is on.
std::atomic<bool> g_any{false};
std::mutex g_mutex;
std::map<std::string, const Switch*> g_by_op;
std::map<std::string, int64_t> g_moved;

const Switch* on_for(const std::string& op) {
  if (!g_any.load()) return nullptr;
  const std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = g_by_op.find(op);
  return it == g_by_op.end() ? nullptr : it->second;
}

void count_moved(const Switch& s) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  ++g_moved[s.name];
}

}  // namespace

void add(Switch s) {
  for (const auto& r : registry()) {
    if (r.name == s.name) throw std::logic_error("perturbed numerics: switch '" + s.name + "' registered twice");
  }
  registry().push_back(std::move(s));
}

const std::vector<Switch>& switches() { return registry(); }

std::vector<std::string> parse(const std::string& text, const std::string& option) {
  std::vector<std::string> known, names;
  for (const auto& s : registry()) known.push_back(s.name);
  if (text.empty()) {
    throw std::invalid_argument(fmt::format("{}: names no switch; name them or all (known: all, {})", option,
                                            fmt::join(known, ", ")));
  }
  bool all = false;
  size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    const auto name = text.substr(start, end - start);
    start = end + 1;
    if (name == "all") {
      all = true;  // with others named too: all of them still
      continue;
    }
    if (name.empty()) {
      throw std::invalid_argument(fmt::format("{} '{}': an empty switch name between commas", option, text));
    }
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw std::invalid_argument(fmt::format("{}: unknown switch '{}' (known: all, {})", option, name,
                                              fmt::join(known, ", ")));
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return all ? known : names;
}

Scope::Scope(const std::vector<std::string>& names) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_by_op.clear();
  g_moved.clear();
  for (const auto& s : registry()) {
    if (std::find(names.begin(), names.end(), s.name) == names.end()) continue;
    for (const auto& op : s.ops) g_by_op[op] = &s;
  }
  g_any.store(!g_by_op.empty());
}

Scope::~Scope() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_any.store(false);
  g_by_op.clear();
}

std::map<std::string, int64_t> Scope::moved() const {
  const std::lock_guard<std::mutex> lock(g_mutex);
  return g_moved;
}

void run_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  if (const Switch* s = g_any.load() ? on_for(op_name(op.schema())) : nullptr; s != nullptr && s->kernel) {
    if (run_replacement(op, stack, s->kernel)) count_moved(*s);
    return;
  }
  if (const auto* model = cuda_arithmetic::model_for(op, *stack)) {
    if (run_replacement(op, stack, model->kernel)) cuda_arithmetic::count_moved(*model);
    return;
  }
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);
}

at::Tensor run_unboxed(const std::string& name, const std::vector<at::Tensor>& inputs,
                       const std::function<at::Tensor(const std::vector<at::Tensor>&)>& compute) {
  const Switch* s = g_any.load() ? on_for(name) : nullptr;
  if (s == nullptr || !s->inputs) return compute(inputs);
  auto mine = compute(s->inputs(name, inputs));
  if (!same_result(mine, compute(inputs))) count_moved(*s);
  return mine;
}

}  // namespace devparity::vdev::perturb
