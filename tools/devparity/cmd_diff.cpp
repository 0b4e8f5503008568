#include "harness/base/atomic_file.h"
#include "harness/base/output_paths.h"
#include "harness/report/diff.h"
#include "harness/report/diff_html.h"
#include "tools/devparity/commands.h"

#include <CLI/CLI.hpp>

#include <iostream>

namespace devparity::cli {

CLI::App* add_diff_command(CLI::App& app, Options& o) {
  auto* diff = app.add_subcommand("diff", "Compare two reports result by result: new failures, "
                                          "fixes, status changes and statistics that moved; exit 1 "
                                          "on regressions");
  diff->add_option("old", o.diff.old_report, "The older report")->required();
  diff->add_option("new", o.diff.new_report, "The newer report")->required();
  diff->add_option("--format", o.diff.format, "text | md (for a pull-request comment) | json")
      ->check(CLI::IsMember({"text", "md", "json"}))
      ->capture_default_str();
  diff->add_option("--html", o.diff.html,
                   "Also write the diff as a page: the device x case matrix coloured by change, and the tables");
  diff->add_option("--max-abs-growth", o.diff.max_abs_growth,
                   "Report a check's max |diff| that grew by more than this fraction")
      ->check(number_check(0))
      ->capture_default_str();
  diff->add_option("--psnr-drop", o.diff.psnr_drop, "Report a PSNR that fell by more than this many dB")
      ->check(number_check(0))
      ->capture_default_str();
  return diff;
}

int cmd_diff(const Options& options) {
  const auto& o = options.diff;
  DiffThresholds thresholds;
  thresholds.max_abs_growth = o.max_abs_growth;
  thresholds.psnr_drop_db = o.psnr_drop;
  // One report at a time is held whole: the other is its digest.
  if (!o.html.empty()) {
    const OutputPath out{"--html", o.html};
    check_not_an_input(out, {o.old_report, o.new_report});
    check_output_paths({out});
  }
  const auto older = read_report_digest(o.old_report);
  auto d = diff_reports(older, read_report_digest(o.new_report), thresholds);
  d.old_path = o.old_report;
  d.new_path = o.new_report;
  if (!o.html.empty()) write_file_atomic(o.html, diff_html(d));
  if (o.format == "json") {
    std::cout << d.to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (o.format == "md") {
    std::cout << d.to_markdown();
  } else {
    std::cout << d.to_text();
  }
  return d.regressed() ? 1 : 0;
}

}  // namespace devparity::cli
