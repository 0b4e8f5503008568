// The JSON report, the product's main artifact (schema:
// reports/schema/report.schema.json).
//
// Note [Streaming report]
// Results are appended to "<report>.partial" as JSON lines the moment each
// trial ends (flushed, so a crash or a kill loses nothing already run: the
// first line holds the run header, every other line one result). When the run
// ends, the full report is written atomically (temporary file, fsync, rename)
// and the partial file is removed. Readers therefore see either the previous
// report or the complete new one, never half of one.

#include "harness/base/atomic_file.h"
#include "harness/base/error.h"
#include "harness/report/document.h"
#include "harness/report/packed_report.h"
#include "harness/reporters/reporter_registry.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

namespace devparity {
namespace {

class JsonReporter final : public ReportCollector {
 public:
  explicit JsonReporter(std::string path) : path_(std::move(path)), partial_path_(path_ + ".partial") {
    if (path_.empty()) throw std::invalid_argument("the json reporter needs a path");
  }

  void on_run_start(const RunInfo& info) override {
    ReportCollector::on_run_start(info);
    ensure_parent_directory(path_);
    partial_.open(partial_path_, std::ios::out | std::ios::trunc);
    if (!partial_) {
      throw InputError(fmt::format("{}: cannot write the report (cannot create {})", path_,
                                   partial_path_));
    }
    auto run = info.run;
    run["planned_trials"] = info.planned_trials;  // so a rebuilt report counts what did not run
    write_line({{"type", "run_start"}, {"schema_version", kReportSchemaVersion}, {"tool", info.tool},
                {"run", run}, {"environment", info.environment}});
  }

  void on_trial_end(const TrialResult& result) override {
    auto line = collect(result);
    line["type"] = "result";
    write_line(line);
  }

  // The whole report replaces its .partial log, which is no longer needed.
  void write(const nlohmann::json& report) override {
    write_file_atomic(path_, report_text(pack_report(report)));
    if (partial_.is_open()) partial_.close();
    std::remove(partial_path_.c_str());
  }

 private:
  void write_line(const nlohmann::json& j) {
    partial_ << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    partial_.flush();
  }

  std::string path_;
  std::string partial_path_;
  std::ofstream partial_;
};

}  // namespace

void register_json_reporter(ReporterRegistry& registry) {
  registry.add("json", "JSON report (schema reports/schema/report.schema.json), streamed to "
                       "<path>.partial while running, written atomically at the end",
               [](const ReporterOptions& o) { return std::make_unique<JsonReporter>(o.path); });
}

}  // namespace devparity
