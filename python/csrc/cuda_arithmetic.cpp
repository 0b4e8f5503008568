// CUDA's arithmetic on vdev for the Python package (Note [CUDA's arithmetic
// on vdev] in vdev/cuda_arithmetic.h): the switch, what moved, and models
// of a library's custom ops written in Python.
#include "harness/builtins.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/mode.h"

#include <ATen/record_function.h>
#include <nlohmann/json.hpp>
#include <torch/library.h>

#include <memory>
#include <string>
#include <vector>

namespace {

namespace ca = devparity::vdev::cuda_arithmetic;

// The pytest plugin's choice, for the rest of the process (Note [vdev's
// mode]): never put back, so nothing of vdev runs at the interpreter's exit.
void set_cuda_arithmetic(bool on) {
  devparity::register_builtin_cuda_models();
  static auto* chosen = new std::unique_ptr<devparity::vdev::ModeScope>();
  chosen->reset();
  auto mode = devparity::vdev::mode();
  mode.cuda_arithmetic = on;
  *chosen = std::make_unique<devparity::vdev::ModeScope>(std::move(mode));
}

// {"moved": {"model": op calls}, "words": "..."} since the last call.
std::string cuda_arithmetic_take() {
  const auto moved = ca::take_moved();
  nlohmann::json out = {{"moved", nlohmann::json::object()}, {"words", ca::moved_words(moved)}};
  for (const auto& [name, calls] : moved) out["moved"][name] = calls;
  return out.dump();
}

// `op` ("mylib::resize" or "mylib::resize.overload") computed on vdev rows by
// `model` (an op of the same schema whose CPU kernel is the Python model,
// defined by devparity.register_cuda_model).
void register_cuda_model(std::string op, std::string model, std::string name, std::string doc, bool replace) {
  devparity::register_builtin_cuda_models();  // an op of vdev's own keeps its model unless replaced
  const auto dot = model.find('.');
  const auto handle = c10::Dispatcher::singleton().findSchemaOrThrow(
      model.substr(0, dot).c_str(), dot == std::string::npos ? "" : model.substr(dot + 1).c_str());
  ca::Model m;
  m.name = std::move(name);
  m.doc = std::move(doc);
  m.ops = {std::move(op)};
  m.kernel = [handle](const c10::FunctionSchema&, const std::vector<c10::IValue>& args, const devparity::vdev::CpuKernel&) {
    // The model's work is the backend's: the tracer must not see its ops on the host.
    const at::DisableRecordFunctionGuard quiet;
    torch::jit::Stack stack(args.begin(), args.end());
    handle.callBoxed(&stack);
    std::vector<at::Tensor> out;
    for (const auto& v : stack) {
      if (v.isTensor()) out.push_back(v.toTensor());
    }
    return out;
  };
  try {
    ca::add(std::move(m), replace);
  } catch (const std::logic_error& e) {
    TORCH_CHECK_VALUE(false, e.what());
  }
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(devparity, m) {
  m.def("set_cuda_arithmetic(bool on) -> ()", &set_cuda_arithmetic);
  m.def("cuda_arithmetic_take() -> str", &cuda_arithmetic_take);
  m.def("register_cuda_model(str op, str model, str name, str doc, bool replace) -> ()", &register_cuda_model);
}
