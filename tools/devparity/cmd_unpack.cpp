#include "harness/base/atomic_file.h"
#include "harness/base/output_paths.h"
#include "harness/report/document.h"
#include "harness/report/packed_report.h"
#include "harness/report/report_file.h"
#include "tools/devparity/commands.h"

#include <CLI/CLI.hpp>

#include <iostream>

namespace devparity::cli {

CLI::App* add_unpack_command(CLI::App& app, Options& o) {
  auto* unpack = app.add_subcommand("unpack", "Write a report with every result in full, for scripts that read "
                                              "the JSON themselves (the file devparity writes is packed: "
                                              "docs/report-format.md)");
  unpack->add_option("report", o.unpack.report, "The JSON report (or a .partial log)")->required();
  unpack->add_option("output", o.unpack.output, "The report in full; - for standard output")->required();
  unpack->add_option("--schema-version", o.unpack.schema_version,
                     "2, or 1 for devparity versions that read only schema 1 (trials that never ran have no "
                     "seed, params or shape)")
      ->check(CLI::IsMember({1, 2}))
      ->capture_default_str();
  return unpack;
}

int cmd_unpack(const Options& options) {
  const auto& o = options.unpack;
  auto full = unpack_report(read_report(o.report));
  // Schema 1 is schema 2 in full, less the packed form's fields, which unpacking removes.
  full["schema_version"] = o.schema_version;
  const auto text = full.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (o.output == "-") {
    std::cout << text;
    return 0;
  }
  const OutputPath out{"the output", o.output};
  check_not_an_input(out, {o.report});
  check_output_paths({out});
  ensure_parent_directory(o.output);
  write_file_atomic(o.output, text);
  std::cout << o.output << "\n";
  return 0;
}

}  // namespace devparity::cli
