// devparity.trace(): the placement tracer around a block of Python code.
#include "python/csrc/python_frames.h"

#include "harness/base/error.h"
#include "harness/trace/tracer.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
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
  seeds.positive_device_data = true;  // Note [Neutral data]
  auto target = device.empty() ? c10::Device(c10::DeviceType::CPU) : c10::Device(device);
  // `vdev` without an index is the current one, as it is to the code traced.
  if (!target.has_index() && !target.is_cpu() && target.type() != c10::DeviceType::Meta) {
    target = c10::impl::getDeviceGuardImpl(target.type())->getDevice();
  }
  try {
    g_tracer = std::make_unique<devparity::Tracer>(target, std::move(seeds));
  } catch (const std::logic_error& e) {
    TORCH_CHECK(false, "devparity.trace(): ", e.what());
  }
}

// Tensors a module keeps as plain attributes, met as the module is called;
// `made_at` names the line that assigned each ("" when unknown), `moved`
// whether its module was moved (Tracer::keep).
void trace_keep(const std::vector<std::string>& names, const std::vector<at::Tensor>& tensors,
                const std::vector<std::string>& made_at, const c10::List<bool>& moved) {
  TORCH_CHECK_VALUE(names.size() == tensors.size() && made_at.size() == tensors.size() && moved.size() == tensors.size(),
                    "trace_keep: ", names.size(), " names, ", made_at.size(), " lines and ", moved.size(),
                    " flags for ", tensors.size(), " tensors");
  devparity::Tracer::with_active([&](devparity::Tracer& t) {
    for (size_t i = 0; i < names.size(); ++i) t.keep(names[i], tensors[i], made_at[i], moved.get(i));
  });
}

void trace_returned(const at::Tensor& output) {
  std::lock_guard<std::mutex> lock(g_mutex);
  TORCH_CHECK(g_tracer, "devparity.trace(): no trace is active");
  g_tracer->returned(output);
}

// What a test receives from the library: the wrong_device_output it would
// be, as the finding's JSON, or "" (the pytest plugin's check).
std::string trace_received(const at::Tensor& output) {
  std::string out;
  devparity::Tracer::with_active([&](devparity::Tracer& t) {
    if (const auto f = t.judge_received(output)) out = f->to_json().dump();
  });
  return out;
}

// Whether any of `tensors` is device data to the active trace (the pytest
// plugin: was a library call given the test's data?).
bool trace_holds_device_data(const std::vector<at::Tensor>& tensors) {
  bool any = false;
  devparity::Tracer::with_active([&](devparity::Tracer& t) {
    for (const auto& tensor : tensors) any = any || t.holds_device_data(tensor);
  });
  return any;
}

// Host data Python saw made (Tracer::mark_host): "default_factory" or "copied_home".
void trace_mark_host(const at::Tensor& tensor, const std::string& how, const std::string& op,
                     const std::string& source) {
  TORCH_CHECK_VALUE(how == "default_factory" || how == "copied_home", "trace_mark_host: unknown mark '", how, "'");
  const auto mark = how == "default_factory" ? devparity::Tracer::HostMark::kDefaultFactory
                                             : devparity::Tracer::HostMark::kCopiedHome;
  devparity::Tracer::with_active([&](devparity::Tracer& t) { t.mark_host(tensor, mark, op, source); });
}

// A test's own tensors, or a module's registered state: device data
// (Note [Device data and host data]).
void trace_mark_device(const std::vector<at::Tensor>& tensors, bool registered) {
  devparity::Tracer::with_active([&](devparity::Tracer& t) {
    for (const auto& tensor : tensors) t.mark_device(tensor, registered);
  });
}

// Host data whose device the code reads (Tracer::mark_neutral).
void trace_mark_neutral(const at::Tensor& tensor) {
  devparity::Tracer::with_active([&](devparity::Tracer& t) { t.mark_neutral(tensor); });
}

// A finding Python made: {"kind", "severity", "message", "source", "op"}.
void trace_add(const std::string& finding_json) {
  const auto j = nlohmann::json::parse(finding_json);
  devparity::Finding f;
  f.kind = j.at("kind").get<std::string>();
  const auto severity = devparity::severity_from_name(j.value("severity", std::string("error")));
  TORCH_CHECK_VALUE(severity, "trace_add: unknown severity in ", finding_json);
  f.severity = *severity;
  f.op = j.value("op", std::string());
  f.message = j.at("message").get<std::string>();
  f.source = j.value("source", std::string());
  f.made_at = j.value("made_at", std::string());
  f.met_at = j.value("met_at", std::string());
  f.device = j.value("device", std::string());
  devparity::Tracer::with_active([&](devparity::Tracer& t) { t.add(f); });
}

// What kind of failure LibTorch's `message` is (base/error.h): "device_mismatch",
// "unsupported", ...; the one classification Python and the runner share.
std::string classify_error(const std::string& message) {
  return devparity::failure_kind_name(devparity::classify_message(message).kind);
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
  m.def("trace_keep(str[] names, Tensor[] tensors, str[] made_at, bool[] moved) -> ()", &trace_keep);
  m.def("trace_returned(Tensor output) -> ()", &trace_returned);
  m.def("trace_received(Tensor output) -> str", &trace_received);
  m.def("trace_holds_device_data(Tensor[] tensors) -> bool", &trace_holds_device_data);
  m.def("trace_mark_host(Tensor tensor, str how, str op, str source) -> ()", &trace_mark_host);
  m.def("trace_mark_device(Tensor[] tensors, bool registered=False) -> ()", &trace_mark_device);
  m.def("trace_add(str finding) -> ()", &trace_add);
  m.def("trace_mark_neutral(Tensor tensor) -> ()", &trace_mark_neutral);
  m.def("host_handover_enter() -> ()", [] { devparity::enter_host_handover(); });
  m.def("host_handover_leave() -> ()", [] { devparity::leave_host_handover(); });
  m.def("trace_end() -> str", &trace_end);
  m.def("classify_error(str message) -> str", &classify_error);
}
