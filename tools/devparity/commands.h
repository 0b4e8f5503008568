#pragma once
/// The subcommands as a table: each file cmd_<name>.cpp adds its subcommand
/// with its options (add_<name>_command) and runs it (cmd_<name>, returning
/// the process exit code).

#include "tools/devparity/options.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace CLI {
class App;
class Validator;
}

namespace devparity::cli {

/// `devparity run`.
int cmd_run(const Options& options);
/// `devparity list`.
int cmd_list(const Options& options);
/// `devparity apply`.
int cmd_apply(const Options& options);
/// `devparity jpeg-check`.
int cmd_jpeg_check(const Options& options);
/// `devparity diff`.
int cmd_diff(const Options& options);
/// `devparity merge`.
int cmd_merge(const Options& options);
/// `devparity html`.
int cmd_html(const Options& options);
/// `devparity unpack`.
int cmd_unpack(const Options& options);

/// Adds `devparity run` and its options to `app`.
CLI::App* add_run_command(CLI::App& app, Options& options);
/// Adds `devparity list` and its options to `app`.
CLI::App* add_list_command(CLI::App& app, Options& options);
/// Adds `devparity apply` and its options to `app`.
CLI::App* add_apply_command(CLI::App& app, Options& options);
/// Adds `devparity jpeg-check` and its options to `app`.
CLI::App* add_jpeg_check_command(CLI::App& app, Options& options);
/// Adds `devparity diff` and its options to `app`.
CLI::App* add_diff_command(CLI::App& app, Options& options);
/// Adds `devparity merge` and its options to `app`.
CLI::App* add_merge_command(CLI::App& app, Options& options);
/// Adds `devparity html` and its options to `app`.
CLI::App* add_html_command(CLI::App& app, Options& options);
/// Adds `devparity unpack` and its options to `app`.
CLI::App* add_unpack_command(CLI::App& app, Options& options);
/// The --plugin option of run, list and apply.
void add_plugin_option(CLI::App& command, Options& options);

/// A number of seconds: finite, above zero and at most 30 days ("nan", "inf", 0 and 1e300 are
/// refused in words).
inline constexpr double kMaxSeconds = 30.0 * 86400.0;
CLI::Validator seconds_check();
/// --progress-s: 0, or finite seconds up to a day; below the floor, the floor.
inline constexpr double kMinProgressPeriodS = 0.05;
inline constexpr double kMaxProgressPeriodS = 86400.0;
CLI::Validator progress_period_check();
/// A seed: a whole number from 0 to 2^64-1, refused rather than saturated past it.
CLI::Validator seed_check();
/// A finite number in [min, max] (max infinite: no upper bound), refused in
/// words a person reads ("from 0 to 200", "0 or more"), not CLI11's 309 digits.
CLI::Validator number_check(double min, double max = HUGE_VAL);
/// A whole number in [min, max], likewise.
CLI::Validator whole_number_check(int64_t min, int64_t max);

/// One subcommand.
struct Command {
  const char* name;                              ///< as typed: "run", "jpeg-check"
  CLI::App* (*add)(CLI::App& app, Options& options);  ///< the subcommand and its options
  int (*run)(const Options& options);            ///< runs it; returns the exit code
};
/// Every subcommand, in --help order (devparity-torch's table).
const std::vector<Command>& commands();
/// The subcommands that only read and write reports (diff, merge, html,
/// unpack): the devparity executable runs them without LibTorch
/// (Note [Report commands without LibTorch]).
const std::vector<Command>& report_commands();

/// Parses the command line for `table`'s subcommands and runs the one named,
/// mapping errors to DESIGN.md's exit codes (2: bad usage or input, 3:
/// internal). `prepare`, if given, runs between parsing and the command
/// (devparity-torch loads --plugin libraries there).
int run_command_line(int argc, char** argv, const std::vector<Command>& table, void (*prepare)(const Options&));

}  // namespace devparity::cli
