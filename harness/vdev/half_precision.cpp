#include "harness/vdev/half_precision.h"

#include "harness/rules/half_gaps.h"
#include "harness/vdev/perturb.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <c10/util/Exception.h>

#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace devparity::vdev::half {
namespace {

const char* label(c10::ScalarType t) { return t == c10::ScalarType::Half ? "float16" : "bfloat16"; }

bool is_half(c10::ScalarType t) { return t == c10::ScalarType::Half || t == c10::ScalarType::BFloat16; }

// The half precision dtype among an op's tensor arguments, if any.
c10::optional<c10::ScalarType> half_dtype_of(const torch::jit::Stack& stack, size_t n) {
  for (auto it = stack.end() - static_cast<std::ptrdiff_t>(n); it != stack.end(); ++it) {
    if (it->isTensor() && it->toTensor().defined() && is_half(it->toTensor().scalar_type())) {
      return it->toTensor().scalar_type();
    }
    if (it->isTensorList()) {
      for (const at::Tensor& t : it->toTensorList().vec()) {
        if (t.defined() && is_half(t.scalar_type())) return t.scalar_type();
      }
    }
  }
  return c10::nullopt;
}

// Whether a half kernel CUDA has is what failed: then the float32 round trip stands in for it.
bool round_trips(const c10::Error& e, const char* op, c10::ScalarType dtype) {
  return device_rules::lacks_dtype_kernel(e.msg(), c10::toString(dtype)) &&
         !device_rules::cuda_lacks_half_kernel(op, label(dtype));
}

c10::IValue widened(const c10::IValue& v) {
  if (v.isTensor()) {
    const auto& t = v.toTensor();
    return t.defined() && is_half(t.scalar_type()) ? c10::IValue(t.to(at::kFloat)) : v;
  }
  if (v.isTensorList()) {
    auto list = v.toTensorList().vec();
    for (auto& t : list) {
      if (t.defined() && is_half(t.scalar_type())) t = t.to(at::kFloat);
    }
    return c10::IValue(c10::List<at::Tensor>(list));
  }
  return v;
}

bool is_written(const c10::Argument& a) { return a.alias_info() != nullptr && a.alias_info()->isWrite(); }

// Ops known to need the round trip, per dtype: a failed CPU call costs an exception with its
// backtrace, so each op and dtype fails once.
std::mutex g_known_mutex;
std::set<std::pair<const c10::FunctionSchema*, c10::ScalarType>> g_known;

bool known_to_round_trip(const c10::OperatorHandle& op, c10::ScalarType dtype) {
  const std::lock_guard<std::mutex> lock(g_known_mutex);
  return g_known.count({&op.schema(), dtype}) != 0;
}

void note_round_trip(const c10::OperatorHandle& op, c10::ScalarType dtype) {
  const std::lock_guard<std::mutex> lock(g_known_mutex);
  g_known.insert({&op.schema(), dtype});
}

}  // namespace

void run_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto kernel = [&](torch::jit::Stack* s) { perturb::run_kernel(op, s); };
  const auto& schema = op.schema();
  const size_t n = schema.arguments().size();
  const auto dtype = half_dtype_of(*stack, n);
  if (!dtype) {
    kernel(stack);
    return;
  }
  const std::vector<c10::IValue> args(stack->end() - static_cast<std::ptrdiff_t>(n), stack->end());
  const size_t base = stack->size() - n;
  if (!known_to_round_trip(op, *dtype)) {
    try {
      kernel(stack);
      return;
    } catch (const c10::Error& e) {
      if (!round_trips(e, schema.name().c_str(), *dtype)) throw;
    }
    note_round_trip(op, *dtype);
  }
  // The backend's work, not the subject's: the tracer must not see the casts.
  const at::DisableRecordFunctionGuard quiet;
  stack->resize(base);
  for (const auto& a : args) stack->push_back(widened(a));
  const std::vector<c10::IValue> wide(stack->end() - static_cast<std::ptrdiff_t>(n), stack->end());
  kernel(stack);
  // Results: float32 ones rounded back; a written argument's float32 copy copied into it and
  // the argument itself returned, as the op returns it.
  std::vector<size_t> written;
  for (size_t i = 0; i < n; ++i) {
    if (is_written(schema.arguments()[i]) && args[i].isTensor()) written.push_back(i);
  }
  const size_t outputs = schema.returns().size();
  for (size_t k = 0; k < outputs; ++k) {
    auto& slot = (*stack)[stack->size() - outputs + k];
    if (!slot.isTensor() || !slot.toTensor().defined()) continue;
    const at::Tensor result = slot.toTensor();  // a handle: the slot is replaced below
    bool returned_argument = false;
    for (const size_t i : written) {
      if (!result.is_same(wide[i].toTensor())) continue;
      auto target = args[i].toTensor();
      if (target.sizes() != result.sizes()) target.resize_(result.sizes());
      target.copy_(result);
      slot = c10::IValue(target);
      returned_argument = true;
      break;
    }
    if (!returned_argument && result.scalar_type() == at::kFloat) slot = c10::IValue(result.to(*dtype));
  }
}

bool falls_back(const c10::Error& e, const char* op, c10::ScalarType dtype) {
  return is_half(dtype) && round_trips(e, op, dtype);
}

at::Tensor run_unboxed(const char* op, c10::ScalarType dtype,
                       const std::function<at::Tensor(c10::optional<c10::ScalarType>)>& compute) {
  if (!is_half(dtype)) return compute(c10::nullopt);
  try {
    return compute(c10::nullopt);
  } catch (const c10::Error& e) {
    if (!round_trips(e, op, dtype)) throw;
  }
  return compute(at::kFloat).to(dtype);
}

}  // namespace devparity::vdev::half
