// devparity.trace(): the placement tracer around a block of Python code.
#include "python/csrc/python_frames.h"

#include "harness/trace/tracer.h"

#include <nlohmann/json.hpp>
#include <torch/library.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::mutex g_mutex;
std::unique_ptr<devparity::Tracer> g_tracer;

// `device` empty: the target is inferred (TraceSeeds::infer_target).
void trace_begin(const std::string& device, std::vector<std::string> skip) {
  devparity::python::locate_python_sources(std::move(skip));
  std::lock_guard<std::mutex> lock(g_mutex);
  TORCH_CHECK(!g_tracer, "devparity.trace(): a trace is already active in this process (traces do not "
                         "nest: end the outer one first, or leave --devparity-trace off)");
  devparity::TraceSeeds seeds;
  seeds.infer_target = device.empty();
  seeds.literals_by_line = true;
  seeds.cpu_means_default = true;
  try {
    g_tracer = std::make_unique<devparity::Tracer>(
        device.empty() ? c10::Device(c10::DeviceType::CPU) : c10::Device(device), std::move(seeds));
  } catch (const std::logic_error& e) {
    TORCH_CHECK(false, "devparity.trace(): ", e.what());
  }
}

// Tensors a module keeps as plain attributes, met as the module is called.
void trace_keep(const std::vector<std::string>& names, const std::vector<at::Tensor>& tensors) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_tracer) return;
  TORCH_CHECK_VALUE(names.size() == tensors.size(), "trace_keep: ", names.size(), " names for ",
                    tensors.size(), " tensors");
  for (size_t i = 0; i < names.size(); ++i) g_tracer->keep(names[i], tensors[i]);
}

void trace_returned(const at::Tensor& output) {
  std::lock_guard<std::mutex> lock(g_mutex);
  TORCH_CHECK(g_tracer, "devparity.trace(): no trace is active");
  g_tracer->returned(output);
}

// Ends the trace: {"target", "ops", "findings": [...], "failed": the op an exception left}.
std::string trace_end() {
  std::lock_guard<std::mutex> lock(g_mutex);
  TORCH_CHECK(g_tracer, "devparity.trace(): no trace is active");
  const std::unique_ptr<devparity::Tracer> tracer = std::move(g_tracer);
  auto findings = nlohmann::json::array();
  for (const auto& f : tracer->findings()) findings.push_back(f.to_json());
  nlohmann::json out = {
      {"target", tracer->target().str()}, {"ops", tracer->ops_traced()}, {"findings", findings}};
  // The top-level op an exception left: Python names the error.
  const auto& failed = tracer->failed_op();
  if (!failed.op.empty()) {
    out["failed"] = {{"op", failed.op}, {"scopes", failed.scopes}, {"source", failed.source}, {"device", failed.device}};
  }
  return out.dump();
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(devparity, m) {
  m.def("trace_begin(str device, str[] skip) -> ()", &trace_begin);
  m.def("trace_keep(str[] names, Tensor[] tensors) -> ()", &trace_keep);
  m.def("trace_returned(Tensor output) -> ()", &trace_returned);
  m.def("trace_end() -> str", &trace_end);
}
