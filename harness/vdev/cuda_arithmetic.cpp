// The registry of CUDA's arithmetic on vdev (Note [CUDA's arithmetic on vdev]
// in vdev/cuda_arithmetic.h).
#include "harness/vdev/cuda_arithmetic.h"

#include "harness/rules/op_arguments.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace devparity::vdev::cuda_arithmetic {
namespace {

std::mutex g_mutex;
std::deque<Model> g_models;                     // stable addresses: a replaced model stays for calls in flight
std::map<std::string, std::vector<const Model*>> g_by_op;  // the models of each op now, first first
std::atomic<uint64_t> g_generation{1};          // changes with g_by_op: per-thread lookups start again
std::map<std::string, int64_t> g_moved;

// Each thread's answers by schema (a schema's address is its op's for the process).
struct Lookups {
  uint64_t generation = 0;
  std::unordered_map<const c10::FunctionSchema*, std::vector<const Model*>> by_schema;
};

const std::vector<const Model*>& registered_for(const c10::FunctionSchema& schema) {
  thread_local Lookups lookups;
  const auto generation = g_generation.load(std::memory_order_acquire);
  if (lookups.generation != generation) {
    lookups.by_schema.clear();
    lookups.generation = generation;
  }
  if (const auto it = lookups.by_schema.find(&schema); it != lookups.by_schema.end()) return it->second;
  std::vector<const Model*> found;
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (const auto it = g_by_op.find(op_name(schema)); it != g_by_op.end()) found = it->second;
  }
  return lookups.by_schema.emplace(&schema, std::move(found)).first->second;
}

bool computes_every_call(const Model& m) { return !m.when && !m.covers; }

}  // namespace

void add(Model model, bool replace) {
  if (model.name.empty() || model.ops.empty() || !model.kernel) {
    throw std::invalid_argument("CUDA model '" + model.name + "': needs a name, ops and a kernel");
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!replace) {
    for (const auto& op : model.ops) {
      const auto it = g_by_op.find(op);
      if (it == g_by_op.end()) continue;
      for (const auto* earlier : it->second) {
        if (computes_every_call(*earlier)) {
          throw std::logic_error(
              fmt::format("CUDA model '{}': {} already has the model '{}'", model.name, op, earlier->name));
        }
      }
    }
  }
  const Model& kept = g_models.emplace_back(std::move(model));
  for (const auto& op : kept.ops) {
    auto& list = g_by_op[op];
    if (replace) list.clear();
    list.push_back(&kept);
  }
  g_generation.fetch_add(1, std::memory_order_release);
}

bool register_model(Model model) noexcept {
  return register_noexcept([&] { add(std::move(model)); });
}

std::vector<Model> models() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<Model> out;
  for (const auto& m : g_models) {
    bool current = false;
    for (const auto& op : m.ops) {
      const auto& list = g_by_op.at(op);
      current = current || std::find(list.begin(), list.end(), &m) != list.end();
    }
    if (current) out.push_back(m);
  }
  return out;
}

const Model* model_for(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  if (!enabled()) return nullptr;
  const auto& schema = op.schema();
  const auto& list = registered_for(schema);
  if (list.empty()) return nullptr;
  const auto n = schema.arguments().size();
  for (const auto* model : list) {
    if (model->when && !model->when()) continue;
    // The arguments where they lie on the stack: no copy on every matmul.
    if (model->covers && !model->covers(schema, c10::ArrayRef<c10::IValue>(stack).slice(stack.size() - n))) continue;
    return model;
  }
  return nullptr;
}

void count_moved(const Model& model) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  ++g_moved[model.name];
}

std::map<std::string, int64_t> take_moved() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  std::map<std::string, int64_t> out;
  out.swap(g_moved);
  return out;
}

std::string moved_words(const std::map<std::string, int64_t>& moved) {
  std::map<std::string, std::string> settings;
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto& m : g_models) settings[m.name] = m.setting;
  }
  std::string out;
  for (const auto& [name, calls] : moved) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{} in {} op call{}", name, calls, calls == 1 ? "" : "s");
    if (const auto it = settings.find(name); it != settings.end() && !it->second.empty()) {
      out += fmt::format(" ({} is on)", it->second);
    }
  }
  return out;
}

}  // namespace devparity::vdev::cuda_arithmetic
