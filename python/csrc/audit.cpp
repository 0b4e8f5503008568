// devparity.audit() and devparity.compare(): a Python callable audited by the
// runner, in this process, as an operator subject (harness/subject/op_subject.h).
#include "python/csrc/python_frames.h"

#include "harness/base/compare.h"
#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/interrupt.h"
#include "harness/base/json_source.h"
#include "harness/base/tolerance.h"
#include "harness/device/device.h"
#include "harness/vdev/vdev.h"
#include "harness/model/results.h"
#include "harness/report/document.h"
#include "harness/reporters/environment.h"
#include "harness/report/report_file.h"
#include "harness/session/session.h"
#include "harness/suite/inputs.h"
#include "harness/suite/case.h"
#include "harness/vdev/perturb.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <torch/library.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

namespace {

using devparity::InputError;

void register_input(const std::string& name, const at::Tensor& tensor) {
  try {
    devparity::register_input_tensor(name, tensor);
  } catch (const InputError& e) {
    TORCH_CHECK_VALUE(false, e.what());
  }
}

// The run's report, assembled as the JSON reporter assembles it.
class KeptReport final : public devparity::ReportCollector {
 public:
  nlohmann::json report;

 protected:
  void write(const nlohmann::json& assembled) override { report = assembled; }
};

// An audit's options (written by devparity/_audit.py) as a session's
// configuration, reporting to `report`.
devparity::RunConfig audit_config(const nlohmann::json& o, const devparity::DeviceInventory& inventory,
                                  const std::string& report) {
  devparity::RunConfig c;
  c.argv = {"devparity.audit"};
  c.suites = {"devparity.audit"};
  c.plan.devices = devparity::parse_device_list(o.value("devices", std::string("auto")), inventory);
  if (o.contains("seed") && !o.at("seed").is_null()) c.plan.seed = o.at("seed").get<uint64_t>();
  if (o.contains("dtypes")) {
    c.plan.dtypes.emplace();
    for (const auto& name : o.at("dtypes")) {
      const auto t = devparity::parse_dtype(name.get<std::string>());
      if (!t) throw devparity::UsageError(fmt::format("audit(dtypes): dtype {} is not supported", name.dump()));
      c.plan.dtypes->push_back(*t);
    }
  }
  c.placement = devparity::parse_placement(o.value("placement", std::string("warn")), "audit(placement)");
  c.vdev_async = o.value("vdev_async", true);
  c.cuda_arithmetic = o.value("vdev_arithmetic", std::string("cuda")) != "cpu";
  c.interleavings = o.value("interleavings", 1);
  if (o.contains("perturb") && !o.at("perturb").is_null()) {
    try {
      c.perturb = devparity::vdev::perturb::parse(o.at("perturb").get<std::string>(), "audit(perturb)");
    } catch (const std::invalid_argument& e) {
      throw devparity::UsageError(e.what());
    }
  }
  c.pinned_release =
      devparity::vdev::async::parse_pinned_release(o.value("pinned_release", std::string("pooled")),
                                                   "audit(pinned_release)");
  c.report = report;
  c.report_option = "audit(report)";
  c.require_all = o.value("require_all", false);
  c.console.show = !o.value("quiet", false);
  c.console.quiet = true;
  c.console.color = devparity::Color::kNever;
  for (const char* name : {"junit", "html"}) {
    if (o.contains(name) && o.at(name).is_string()) {
      c.reporters.push_back({fmt::format("audit({})", name), name, o.at(name).get<std::string>()});
    }
  }
  for (const char* field : {"random_sweep", "isolation"}) {
    if (o.contains(field)) c.run_fields[field] = o.at(field);
  }
  return c;
}

// Runs the one-suite document `suite_json` (written by devparity/_audit.py)
// with the options of `options_json`; returns the report.
std::string audit(const std::string& suite_json, const std::string& options_json) {
  try {
    const auto o = nlohmann::json::parse(options_json);
    devparity::interrupt::reset();  // an earlier audit's KeyboardInterrupt is not this one's
    devparity::python::locate_python_sources(o.value("skip", std::vector<std::string>{}));
    // vdev's rows count where the device is not installed here (Note [One accelerator per process]: the
    // session then says why they do not run in this process).
    const auto inventory = devparity::DeviceInventory::probe(
        devparity::vdev::installed() ? devparity::vdev::device_count() : o.value("vdev_count", 0));
    std::vector<devparity::Suite> suites;
    suites.push_back(devparity::load_suite(devparity::parse_json_text("devparity.audit", suite_json), ".", inventory));
    // The report comes back from memory; a file only where one was asked for.
    const auto report = o.contains("report") && !o.at("report").is_null() ? o.at("report").get<std::string>()
                                                                           : std::string();
    KeptReport kept;
    auto config = audit_config(o, inventory, report);
    config.listeners.push_back(&kept);
    devparity::run_session(config, suites, inventory);
    return kept.report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const devparity::UsageError& e) {
    TORCH_CHECK_VALUE(false, "devparity.audit: ", e.what());
  } catch (const InputError& e) {
    TORCH_CHECK_VALUE(false, "devparity.audit: ", e.what());
  }
}

// The report of an audit whose worker process ended before writing it
// (audit(isolate=True): it died, called os._exit, or ran past timeout_s):
// rebuilt from `report`.partial (or `report` itself, or empty when the worker
// wrote neither), marked interrupted by `cause` with `message`, and written
// to the report, JUnit and HTML paths of `options_json`. Returns the report.
std::string close_report(const std::string& report, const std::string& options_json, const std::string& cause,
                         const std::string& message) {
  try {
    const auto o = nlohmann::json::parse(options_json);
    const auto inventory = devparity::DeviceInventory::probe();
    const auto config = audit_config(o, inventory, report);
    nlohmann::json doc;
    for (const auto& path : {report, report + ".partial"}) {
      if (!doc.is_null() || !std::filesystem::exists(path)) continue;
      doc = devparity::load_report(path);
    }
    if (doc.is_null()) {
      doc = devparity::assemble_report(devparity::session_run_info(config, inventory), devparity::RunSummary{},
                                       nlohmann::json::array());
    }
    doc["summary"]["interrupted"] = {{"signal", cause}, {"message", message}};
    devparity::write_report_files(config, doc);
    return doc.dump();
  } catch (const devparity::UsageError& e) {
    TORCH_CHECK_VALUE(false, "devparity.audit: ", e.what());
  } catch (const InputError& e) {
    TORCH_CHECK_VALUE(false, "devparity.audit: ", e.what());
  }
}

// A KeyboardInterrupt inside the audited callable: the run stops after it,
// its trial abandoned, and audit() raises it again once the report is written.
void request_interrupt() { devparity::interrupt::request(SIGINT); }

// The parity statistics of `output` against `reference` under the tolerance
// setting `tolerance_json` (null: the dtype's default), as reports write them.
std::string compare(const at::Tensor& reference, const at::Tensor& output, const std::string& tolerance_json) {
  TORCH_CHECK_VALUE(reference.sizes() == output.sizes(), "devparity.compare: shapes differ (reference ",
                    reference.sizes(), ", output ", output.sizes(), ")");
  TORCH_CHECK_VALUE(reference.scalar_type() == output.scalar_type(), "devparity.compare: dtypes differ (reference ",
                    reference.scalar_type(), ", output ", output.scalar_type(), ")");
  try {
    const auto setting = nlohmann::json::parse(tolerance_json);
    devparity::validate_tolerance(setting);
    const auto tolerance = devparity::resolve_tolerance(setting, reference.scalar_type());
    const auto stats = devparity::compare_tensors(reference.detach(), output.detach(), tolerance);
    auto out = stats.to_json();
    out["tolerance"] = tolerance.to_json();
    out["within"] = stats.within(tolerance);
    return out.dump();
  } catch (const devparity::FieldError& e) {
    TORCH_CHECK_VALUE(false, "devparity.compare: tolerance ", e.pointer(), ": ", e.what());
  } catch (const InputError& e) {
    TORCH_CHECK_VALUE(false, "devparity.compare: ", e.what());
  }
}

// {"tool", "environment"} as reports write them (the pytest plugin's session report).
std::string report_header() {
  const auto inventory = devparity::DeviceInventory::probe();
  return nlohmann::json{{"tool", devparity::describe_tool()},
                        {"environment", devparity::describe_environment(inventory)}}
      .dump();
}

}  // namespace

// A report file read back with every result in full (devparity.load_report).
std::string load_report_text(const std::string& path) {
  try {
    return devparity::load_report(path).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const InputError& e) {
    TORCH_CHECK_VALUE(false, "devparity.load_report: ", e.what());
  }
}

TORCH_LIBRARY_FRAGMENT(devparity, m) {
  m.def("report_header() -> str", &report_header);
  m.def("register_input(str name, Tensor tensor) -> ()", &register_input);
  m.def("audit(str suite, str options) -> str", &audit);
  m.def("compare(Tensor reference, Tensor output, str tolerance) -> str", &compare);
  m.def("load_report(str path) -> str", &load_report_text);
  m.def("close_report(str report, str options, str cause, str message) -> str", &close_report);
  m.def("request_interrupt() -> ()", &request_interrupt);
}
