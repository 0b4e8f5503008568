// Running a switch's or a CUDA model's kernel in place of the CPU's (vdev/kernel_replacement.h).
#include "harness/vdev/kernel_replacement.h"

#include <ATen/ATen.h>

namespace devparity::vdev {
namespace {

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

const c10::IValue* argument(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                            const char* name) {
  const auto i = schema.argumentIndexWithName(name);
  return i && static_cast<size_t>(*i) < args.size() ? &args[static_cast<size_t>(*i)] : nullptr;
}

bool same_result(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  if (!at::isFloatingType(a.scalar_type())) return at::equal(a, b);
  return ((a == b) | (at::isnan(a) & at::isnan(b))).all().item<bool>();
}

bool run_replacement(const c10::OperatorHandle& op, torch::jit::Stack* stack, const ReplacementKernel& kernel) {
  const auto& schema = op.schema();
  const auto n = schema.arguments().size();
  const std::vector<c10::IValue> args(stack->end() - static_cast<std::ptrdiff_t>(n), stack->end());
  // The CPU's results, for the comparison: written arguments on copies.
  std::vector<size_t> written;
  std::vector<c10::IValue> theirs = args;
  for (size_t i = 0; i < n; ++i) {
    if (!is_written(schema.arguments()[i]) || !args[i].isTensor()) continue;
    written.push_back(i);
    theirs[i] = c10::IValue(args[i].toTensor().clone());
  }
  const auto cpu = cpu_kernel_of(op)(theirs);
  auto mine = kernel(schema, args, cpu_kernel_of(op));
  bool moved = mine.size() != cpu.size();
  for (size_t k = 0; k < mine.size() && !moved; ++k) moved = !same_result(mine[k], cpu[k]);
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
  return moved;
}

}  // namespace devparity::vdev
