#include "harness/report/diff.h"
#include "harness/report/report_file.h"
#include "tools/devparity/commands.h"

#include <iostream>

namespace devparity::cli {

int cmd_diff(const Options& options) {
  const auto& o = options.diff;
  DiffThresholds thresholds;
  thresholds.max_abs_growth = o.max_abs_growth;
  thresholds.psnr_drop_db = o.psnr_drop;
  auto d = diff_reports(load_report(o.old_report), load_report(o.new_report), thresholds);
  d.old_path = o.old_report;
  d.new_path = o.new_report;
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
