#pragma once
/// The command line, parsed by one function into plain structs, and `run`'s
/// straight into the RunConfig a session runs (cmd_run.cpp; Catch2's
/// makeCommandLineParser pattern).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace devparity::cli {

/// `devparity run`'s command line: a RunConfig its options are bound into,
/// and the syntax that needs more than its own option (cmd_run.cpp).
struct RunCommandLine;

/// Indices of the simulated device a run has unless --vdev-count says otherwise.
inline constexpr int kDefaultVdevCount = 2;

/// `devparity list`.
struct ListOptions {
  std::vector<std::string> suites;  ///< empty: the default suite
  bool json = false;
  std::string markdown;  ///< a table the docs embed: "transforms" or "switches"; empty: none
};

/// `devparity apply`.
struct ApplyOptions {
  std::string subject;
  std::string input;
  std::string output;
  std::string params = "{}";
  std::string device = "cpu";
  uint64_t seed = 0;
};

/// `devparity diff`.
struct DiffOptions {
  std::string old_report, new_report;
  std::string format = "text";  ///< text | md | json
  std::string html;             ///< also write the diff's page here; empty: none
  double max_abs_growth = 0.1;
  double psnr_drop = 1.0;
};

/// `devparity html`.
struct HtmlOptionsCli {
  std::string report;
  std::string output;
};

/// `devparity unpack`.
struct UnpackOptions {
  std::string report;
  std::string output;      ///< "-": standard output
  int schema_version = 2;  ///< 1 for readers of schema 1
};

/// `devparity merge`.
struct MergeOptions {
  std::string output;
  std::vector<std::string> inputs;
  std::string junit;  ///< also write JUnit XML of the merged report
  std::string html;   ///< also write the HTML page of the merged report
  bool allow_partial = false;  ///< merge inputs that did not finish, or not every shard
};

/// `devparity jpeg-check`.
struct JpegCheckOptions {
  std::vector<std::string> files;
  std::string reference;             ///< source image, .npy or .png; empty: none
  std::optional<double> min_psnr;    ///< replaces the quality floor
  std::string expect_size;           ///< "HxW"; empty: any
  bool json = false;
};

/// Everything the command line said.
struct Options {
  std::string command;  ///< run | list | apply | jpeg-check | diff | merge | html | unpack
  /// Made by add_run_command, where LibTorch is linked (the report commands' executable has no run).
  std::shared_ptr<RunCommandLine> run;
  ListOptions list;
  ApplyOptions apply;
  JpegCheckOptions jpeg_check;
  DiffOptions diff;
  MergeOptions merge;
  HtmlOptionsCli html;
  UnpackOptions unpack;
  std::vector<std::string> plugins;  ///< --plugin libraries, loaded before anything else
  std::vector<std::string> argv;
};

struct Command;

/// Parses the command line for the subcommands of `table`. Returns an exit
/// code when the program should stop (0 after --help or --version, 2 after a
/// usage error, already printed), or nullopt to go on with options.command.
std::optional<int> parse_command_line(int argc, char** argv, const std::vector<Command>& table, Options& options);

/// The suite used when no --suite is given: cases/default.json under the
/// current folder, else under the source tree devparity was built from.
std::string default_suite_path();

}  // namespace devparity::cli
