#pragma once
/// The command line, parsed into plain structs by one function (Catch2's
/// makeCommandLineParser pattern).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace devparity::cli {

/// `devparity run`.
struct RunOptions {
  std::vector<std::string> suites;                   ///< empty: the default suite
  std::string torchscript;                           ///< --torchscript: audit one module, no suite
  std::string shape = "2x3x17x11";                   ///< --shape for --torchscript inputs
  std::string filter;                                ///< gtest-style globs on result ids
  std::string devices = "auto";                      ///< device list (DEVPARITY_DEVICES)
  std::string dtypes;                                ///< dtype list or "all" (DEVPARITY_DTYPES)
  std::string report = "reports/out/report.json";    ///< JSON report path
  std::string junit;                                 ///< JUnit XML path; empty: none
  std::string html;                                  ///< HTML page path; empty: none
  std::vector<std::string> reporters;                ///< --reporter NAME[=FILE], repeatable
  std::string baseline;                              ///< previous report; empty: none
  bool require_all = false;                          ///< a case that did not run everywhere fails the run
  std::string shard;                                 ///< "I/N"; empty: the whole plan
  std::string isolate;                               ///< "", "trial" or "case" (--isolate)
  double timeout_s = 300.0;                          ///< per trial, under --isolate
  int64_t memory_limit_mb = 0;                       ///< workers' address-space limit; 0: none
  std::string worker;                                ///< internal: run as a worker (isolation.h)
  std::string artifacts;                             ///< folder for failing trials' .npy; empty: next to the report
  double artifacts_budget_mb = 256.0;                ///< 0 keeps none
  std::optional<uint64_t> seed;                      ///< overrides every case's seed
  bool quiet = false;
  bool verbose = false;
  std::string color = "auto";                        ///< auto | always | never
  double progress_s = 10.0;                          ///< off a terminal: a progress line this often; 0: none
  int64_t max_trials = 0;                            ///< a larger plan is refused; 0: no cap
  std::string placement = "warn";                    ///< warn | strict | off
  int vdev_count = 2;                                ///< virtual device indices
  bool vdev_worker = false;                          ///< vdev rows in a worker process (--vdev-worker)
  bool vdev_async = true;                            ///< vdev streams run later (vdev/async.h)
  int interleavings = 1;                             ///< with vdev_async: interleavings per trial
  std::string pinned_release = "pooled";             ///< with vdev_async: pooled or eager
  std::string perturb;                               ///< vdev's perturbed numerics: "all" or a list
  std::string vdev_arithmetic = "cuda";              ///< vdev computes CUDA's arithmetic (cuda) or the CPU's (cpu)
};

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
  RunOptions run;
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
