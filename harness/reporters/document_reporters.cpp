// The reporters that write the whole report once, at the run's end, in
// another format than the JSON report: JUnit XML and the HTML page (the
// formats themselves are report/junit and report/html, which the torch-free
// devparity executable's merge and html commands write too).

#include "harness/base/atomic_file.h"
#include "harness/report/document.h"
#include "harness/report/html.h"
#include "harness/report/junit.h"
#include "harness/reporters/reporter_registry.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace devparity {
namespace {

using Format = std::function<std::string(const nlohmann::json& report)>;

// Writes the report in `format` to its path.
class DocumentReporter final : public ReportCollector {
 public:
  DocumentReporter(const std::string& name, std::string path, Format format)
      : path_(std::move(path)), format_(std::move(format)) {
    if (path_.empty()) throw std::invalid_argument("the " + name + " reporter needs a path");
  }
  void on_run_start(const RunInfo& info) override {
    ensure_parent_directory(path_);
    ReportCollector::on_run_start(info);
  }
  void write(const nlohmann::json& report) override { write_file_atomic(path_, format_(report)); }

 private:
  std::string path_;
  Format format_;
};

}  // namespace

void register_junit_reporter(ReporterRegistry& registry) {
  registry.add("junit", "JUnit XML: a testsuite per case, a testcase per trial (tests/junit/junit.xsd)",
               [](const ReporterOptions& o) {
                 return std::make_unique<DocumentReporter>(
                     "junit", o.path, [](const nlohmann::json& report) { return junit_xml(report); });
               });
}

void register_html_reporter(ReporterRegistry& registry) {
  registry.add("html", "one self-contained HTML page: summary, filters, and per failure the images and "
                       "a |diff| heatmap",
               [](const ReporterOptions& o) {
                 HtmlOptions html;
                 html.base_dir = o.base_dir;
                 return std::make_unique<DocumentReporter>(
                     "html", o.path, [html](const nlohmann::json& report) { return html_report(report, html); });
               });
}

}  // namespace devparity
