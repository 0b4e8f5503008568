// The registry of perturbed-numerics switches and the kernel choice (Note
// [Perturbed numerics] in vdev/perturb.h).
#include "harness/vdev/perturb.h"

#include "harness/rules/op_arguments.h"

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
std::vector<std::string> g_session;

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

// Bit for bit, NaN equal to NaN: a switch that only changes a NaN's payload moved nothing.
bool same(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  if (!at::isFloatingType(a.scalar_type())) return at::equal(a, b);
  return ((a == b) | (at::isnan(a) & at::isnan(b))).all().item<bool>();
}

bool is_written(const c10::Argument& a) { return a.alias_info() != nullptr && a.alias_info()->isWrite(); }

std::vector<at::Tensor> tensors_of(const torch::jit::Stack& stack) {
  std::vector<at::Tensor> out;
  for (const auto& v : stack) {
    if (v.isTensor()) out.push_back(v.toTensor());
  }
  return out;
}

CpuKernel cpu_kernel_of(const c10::OperatorHandle& op) {
  return [&op](std::vector<c10::IValue> args) {
    op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), &args);
    return tensors_of(args);
  };
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

void set_session(std::vector<std::string> names) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_session = std::move(names);
}

std::vector<std::string> session() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  return g_session;
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
  const auto& schema = op.schema();
  const Switch* s = g_any.load() ? on_for(op_name(schema)) : nullptr;
  if (s == nullptr || !s->kernel) {
    op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);
    return;
  }
  const auto n = schema.arguments().size();
  const std::vector<c10::IValue> args(stack->end() - static_cast<std::ptrdiff_t>(n), stack->end());
  // The CPU's results, for the count: written arguments on copies.
  std::vector<size_t> written;
  std::vector<c10::IValue> theirs = args;
  for (size_t i = 0; i < n; ++i) {
    if (!is_written(schema.arguments()[i]) || !args[i].isTensor()) continue;
    written.push_back(i);
    theirs[i] = c10::IValue(args[i].toTensor().clone());
  }
  const auto cpu = cpu_kernel_of(op)(theirs);
  auto mine = s->kernel(schema, args, cpu_kernel_of(op));
  bool moved = mine.size() != cpu.size();
  for (size_t k = 0; k < mine.size() && !moved; ++k) moved = !same(mine[k], cpu[k]);
  if (moved) count_moved(*s);
  torch::jit::drop(*stack, n);
  for (size_t k = 0; k < mine.size(); ++k) {
    if (k < written.size()) {  // in place or out=: the results land in the written argument
      auto target = args[written[k]].toTensor();
      if (target.sizes() != mine[k].sizes()) target.resize_(mine[k].sizes());
      target.copy_(mine[k]);
      stack->emplace_back(target);
    } else {
      stack->emplace_back(mine[k]);
    }
  }
}

at::Tensor run_unboxed(const std::string& name, const std::vector<at::Tensor>& inputs,
                       const std::function<at::Tensor(const std::vector<at::Tensor>&)>& compute) {
  const Switch* s = g_any.load() ? on_for(name) : nullptr;
  if (s == nullptr || !s->inputs) return compute(inputs);
  auto mine = compute(s->inputs(name, inputs));
  if (!same(mine, compute(inputs))) count_moved(*s);
  return mine;
}

}  // namespace devparity::vdev::perturb
