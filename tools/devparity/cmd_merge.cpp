#include "harness/base/atomic_file.h"
#include "harness/base/error.h"
#include "harness/base/output_paths.h"
#include "harness/report/document.h"
#include "harness/report/html.h"
#include "harness/report/junit.h"
#include "harness/report/merge.h"
#include "harness/report/packed_report.h"
#include "harness/report/report_file.h"
#include "harness/report/report_summary.h"
#include "tools/devparity/commands.h"

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <future>
#include <iostream>

namespace devparity::cli {

CLI::App* add_merge_command(CLI::App& app, Options& o) {
  auto* merge = app.add_subcommand("merge", "Combine shard reports (run --shard I/N) into one; exit "
                                            "code as for run");
  merge->add_option("output", o.merge.output, "The merged report")->required();
  merge->add_option("inputs", o.merge.inputs, "Shard reports")->required();
  merge->add_option("--junit", o.merge.junit, "Also write JUnit XML of the merged report");
  merge->add_option("--html", o.merge.html, "Also write the HTML page of the merged report");
  merge->add_flag("--allow-partial", o.merge.allow_partial,
                  "Merge inputs of runs that did not finish (.partial logs, interrupted reports) or "
                  "not every shard of an I/N split; the merged report is marked incomplete");
  return merge;
}

int cmd_merge(const Options& options) {
  const auto& o = options.merge;
  std::vector<OutputPath> outputs = {{"the output", o.output}};
  if (!o.junit.empty()) outputs.push_back({"--junit", o.junit});
  if (!o.html.empty()) outputs.push_back({"--html", o.html});
  for (const auto& output : outputs) check_not_an_input(output, o.inputs);
  check_output_paths(outputs);
  // The shards are read side by side: reading is most of a merge's time.
  std::vector<std::future<MergeInput>> reading;
  for (const auto& path : o.inputs) reading.push_back(std::async(std::launch::async, [&path] { return read_merge_input(path); }));
  std::vector<MergeInput> inputs;
  for (auto& r : reading) inputs.push_back(r.get());
  const auto count = inputs.size();
  auto merged = merge_inputs(std::move(inputs));
  // A merge that looks whole but is not would turn a killed shard green.
  const auto gaps = merged.at("summary").value("interrupted", nlohmann::json::object()).value("gaps", std::vector<std::string>{});
  if (!gaps.empty() && !o.allow_partial) {
    throw InputError(fmt::format("merge: the inputs are not a whole run:\n  {}\npass --allow-partial to "
                                 "merge them anyway (the merged report is marked incomplete)",
                                 fmt::join(gaps, "\n  ")));
  }
  // The merged results typed once, for both pages.
  const auto results = o.junit.empty() && o.html.empty() ? std::vector<TrialResult>{} : results_of(merged);
  if (!o.junit.empty()) {
    ensure_parent_directory(o.junit);
    write_file_atomic(o.junit, junit_xml(merged, results));
  }
  if (!o.html.empty()) {
    // Shards' artifact paths are relative to each shard report's folder;
    // the first one's serves when they share it, as they do on one machine.
    HtmlOptions html;
    html.base_dir = std::filesystem::path(o.inputs.front()).parent_path().string();
    ensure_parent_directory(o.html);
    write_file_atomic(o.html, html_report(merged, results, html));
  }
  const auto s = ReportSummary::of(merged);
  ensure_parent_directory(o.output);
  write_file_atomic(o.output, report_text(pack_report(std::move(merged))));
  std::cout << fmt::format("merged {} report(s), {} results: {} passed, {} failed, {} errors, {} skipped -> {}\n",
                           count, s.results.total(), s.results.passed, s.results.failed, s.results.errored,
                           s.results.skipped, o.output);
  return s.passed() ? 0 : 1;
}

}  // namespace devparity::cli
