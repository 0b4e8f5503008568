#pragma once
/// Reporters by name. A reporter is a RunListener built from options; the CLI
/// builds the ones the user asked for (Catch2's reporter registry pattern,
/// with the built-ins added explicitly by register_builtins()).

#include "harness/base/named_registry.h"
#include "harness/model/run_listener.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace devparity {

/// What a reporter is built from.
struct ReporterOptions {
  std::string path;               ///< output file, for file reporters
  std::string base_dir;           ///< the JSON report's folder (artifact paths are relative to it)
  std::ostream* stream = nullptr; ///< output stream, for stream reporters (console)
  bool quiet = false;             ///< failures and the final line only
  bool verbose = false;           ///< a line per trial
  bool color = false;             ///< ANSI colours
  bool interactive = false;       ///< the stream is a terminal: live progress line
  /// Not on a terminal: a progress line at least this often while trials run; 0: none
  /// (Note [Progress without a terminal]).
  double progress_s = 10.0;
};

/// Builds a reporter.
using ReporterFactory = std::function<std::unique_ptr<RunListener>(const ReporterOptions&)>;

/// A registered reporter.
struct ReporterEntry {
  std::string description;  ///< one line for `devparity list`
  ReporterFactory factory;  ///< builds it
};

/// Name -> reporter factory.
class ReporterRegistry : public NamedRegistry<ReporterEntry> {
 public:
  ReporterRegistry() : NamedRegistry("reporter") {}
  /// The process-wide registry.
  static ReporterRegistry& global();
  /// Adds a reporter (see NamedRegistry::add).
  void add(const std::string& name, const std::string& description, ReporterFactory factory);
  /// Builds the reporter `name`; throws std::invalid_argument when unknown.
  std::unique_ptr<RunListener> make(const std::string& name, const ReporterOptions& options) const;
  /// Writes the finished `report` through the reporter `name` built from
  /// `options`, as it writes one at a run's end: a report rebuilt after a run
  /// that never reached its end (an isolated audit's worker that died).
  /// False, writing nothing, when the reporter writes no whole report (the
  /// console); throws std::invalid_argument when `name` is unknown.
  bool write_report(const std::string& name, const ReporterOptions& options, const nlohmann::json& report) const;
};

/// Adds "console" (reporters/console_reporter.cpp).
void register_console_reporter(ReporterRegistry& registry);
/// Adds "json" (reporters/json_reporter.cpp).
void register_json_reporter(ReporterRegistry& registry);
/// Adds "junit" (reporters/junit_reporter.cpp).
void register_junit_reporter(ReporterRegistry& registry);
/// Adds "html" (reporters/html_reporter.cpp).
void register_html_reporter(ReporterRegistry& registry);

}  // namespace devparity
