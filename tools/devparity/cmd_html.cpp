#include "harness/base/atomic_file.h"
#include "harness/base/output_paths.h"
#include "harness/report/html.h"
#include "harness/report/report_file.h"
#include "tools/devparity/commands.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

namespace devparity::cli {

CLI::App* add_html_command(CLI::App& app, Options& o) {
  auto* html = app.add_subcommand("html", "Render a report as one self-contained HTML page (images "
                                          "from its artifacts)");
  html->add_option("report", o.html.report, "The JSON report")->required();
  html->add_option("output", o.html.output, "The HTML file")->required();
  return html;
}

int cmd_html(const Options& options) {
  const auto& o = options.html;
  const OutputPath out{"the output", o.output};
  check_not_an_input(out, {o.report});
  check_output_paths({out});
  HtmlOptions html;
  html.base_dir = std::filesystem::path(o.report).parent_path().string();
  // Each result typed as the reader checks it, its JSON not kept (a large report's page peaks lower).
  std::vector<TrialResult> results;
  const auto report = read_report(o.report, [&](nlohmann::json, const TrialResult& parsed) { results.push_back(parsed); });
  const auto page = html_report(report, results, html);
  ensure_parent_directory(o.output);
  write_file_atomic(o.output, page);
  std::cout << o.output << "\n";
  return 0;
}

}  // namespace devparity::cli
