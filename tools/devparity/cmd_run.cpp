#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/interrupt.h"
#include "harness/base/phase_progress.h"
#include "harness/base/text.h"
#include "harness/device/device.h"
#include "harness/vdev/perturb.h"
#include "harness/vdev/vdev.h"
#include "harness/session/session.h"
#include "harness/suite/case.h"
#include "harness/suite/plan.h"
#include "tools/devparity/commands.h"

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace devparity::cli {

// The options are bound straight into the RunConfig the session runs: each
// setting with a type of its own is parsed into it as the command line is
// read (an option's function, after its check). What needs more than its own
// option stays text until cmd_run: the devices (their indices need the
// inventory, which --vdev-count decides), the reporters (--junit, --html, then
// each --reporter, in that order) and --torchscript's one-case suite.
struct RunCommandLine {
  RunConfig config = defaults();
  std::string devices = "auto";
  int vdev_count = kDefaultVdevCount;
  std::string torchscript;
  std::string shape = "2x3x17x11";
  std::string junit, html;
  std::vector<std::string> reporters;

  // Where the command line's defaults are not a RunConfig's.
  static RunConfig defaults() {
    RunConfig c;
    c.report = "reports/out/report.json";
    c.timeout_s = 300.0;
    c.artifacts_budget_mb = 256.0;
    c.isolation.workers = true;  // a worker is this executable on this command line (Note [Workers])
    return c;
  }
};

namespace {

// Parses an option's value; a bad value that came from its environment
// variable names the variable, which the user may have forgotten was set.
template <typename Parse>
auto parsed(const char* variable, const std::string& value, Parse parse) {
  try {
    return parse(value);
  } catch (const UsageError& e) {
    const char* set = std::getenv(variable);
    if (set == nullptr || value != set) throw;
    throw UsageError(fmt::format("{}='{}' (from the environment): {}", variable, value, e.what()));
  }
}

// --shard I/N.
void parse_shard(const std::string& text, PlanOptions& plan) {
  const auto slash = text.find('/');
  const auto i = parse_count(text.substr(0, slash == std::string::npos ? 0 : slash), 6);
  const auto n = slash == std::string::npos ? std::nullopt : parse_count(text.substr(slash + 1), 6);
  if (!i || !n || *n < 1 || *i >= *n) {
    throw UsageError(fmt::format("--shard '{}': expected I/N with 0 <= I < N, e.g. 0/4", text));
  }
  plan.shard_index = static_cast<int>(*i);
  plan.shard_count = static_cast<int>(*n);
}

std::vector<int64_t> parse_shape(const std::string& text) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find('x', start), text.size());
    const auto size = parse_count(text.substr(start, end - start), 5);
    if (!size || *size == 0) {
      out.clear();
      break;
    }
    out.push_back(*size);
    start = end + 1;
  }
  if (out.size() != 4) {
    throw UsageError(fmt::format("--shape '{}': expected BxCxHxW, four positive integers", text));
  }
  return out;
}

// `--torchscript FILE`: a one-case suite auditing forward(image) -> image on
// the default patterns, in the dtypes asked for (float32 by default).
Suite torchscript_suite(const RunCommandLine& o, const DeviceInventory& inventory) {
  if (!std::filesystem::is_regular_file(o.torchscript)) {
    throw UsageError(fmt::format("--torchscript: cannot read '{}'", o.torchscript));
  }
  const auto shape = parse_shape(o.shape);
  std::vector<std::string> dtypes = {"float32"};
  if (o.config.plan.dtypes) dtypes = o.config.dtype_names();
  const auto path = std::filesystem::absolute(o.torchscript).lexically_normal().string();
  nlohmann::json subject = {{"torchscript", path}, {"dtypes", dtypes}};
  nlohmann::json inputs = nlohmann::json::array();
  for (const char* pattern : {"noise", "edges"}) inputs.push_back({{"pattern", pattern}, {"shape", shape}});
  const nlohmann::json suite = {
      {"suite", "torchscript"},
      {"description", "devparity run --torchscript " + o.torchscript},
      {"cases", {{{"name", "torchscript"}, {"subject", subject}, {"inputs", inputs}, {"dtypes", dtypes}}}}};
  return load_suite(JsonDocument{"--torchscript " + o.torchscript, suite, {}}, ".", inventory);
}

}  // namespace

namespace {

// The simulated device: its indices, asynchronous mode, pinned release,
// perturbed numerics and interleavings.
void add_vdev_options(CLI::App& run_app, RunCommandLine& o) {
  auto* run = &run_app;
  auto& c = o.config;
  run->add_option("--vdev-count", o.vdev_count,
                  "Indices of the simulated accelerator vdev (1..16); auto runs vdev:0 and vdev:1 "
                  "when there is no CUDA device")
      ->check(whole_number_check(1, 16))
      ->envname("DEVPARITY_VDEV_COUNT")
      ->capture_default_str();
  run->add_flag("--vdev-worker", c.vdev_worker,
                "Run the vdev rows in a worker process of their own, as a run with CUDA rows does by itself: "
                "the simulated device is then never installed in this process (docs/simulated-devices.md)")
      ->envname("DEVPARITY_VDEV_WORKER");
  run->add_flag("--vdev-async,!--vdev-sync", c.vdev_async,
                "vdev streams run later, in an interleaving drawn from each trial's seed, with a race "
                "detector: stream and event ordering bugs show without a GPU (the default; --vdev-sync "
                "runs each op at its call; docs/vdev-async.md)")
      ->envname("DEVPARITY_VDEV_ASYNC");
  run->add_option_function<std::string>(
         "--vdev-pinned-release",
         [&c](const std::string& v) { c.pinned_release = vdev::async::parse_pinned_release(v, "--vdev-pinned-release"); },
                  "When pinned host memory is released on the asynchronous vdev: pooled (after its pending "
                  "copies, as PyTorch's pinned pool) or eager (at once, poisoned and reported: pools that do "
                  "not track copies; docs/vdev-async.md)")
      ->check(CLI::IsMember({"pooled", "eager"}))
      ->envname("DEVPARITY_VDEV_PINNED_RELEASE")
      ->default_str("pooled");
  run->add_option_function<std::string>(
         "--vdev-arithmetic", [&c](const std::string& v) { c.cuda_arithmetic = v != "cpu"; },
                  "vdev computes as CUDA would where devparity has a model of CUDA's arithmetic (cuda, the "
                  "default: TF32 matmuls while the process allows them, registered models of custom ops), or "
                  "with the CPU's kernels alone (cpu; docs/cuda-arithmetic.md)")
      ->check(CLI::IsMember({"cuda", "cpu"}))
      ->envname("DEVPARITY_VDEV_ARITHMETIC")
      ->default_str("cuda");
  run->add_option_function<std::string>(
         "--vdev-perturb",
         [&c](const std::string& v) {
           try {
             c.perturb = vdev::perturb::parse(v, "--vdev-perturb");
           } catch (const std::invalid_argument& e) {
             throw UsageError(e.what());
           }
         },
                  "vdev computes with other legal arithmetic than the CPU: all, or a comma list of switches "
                  "(devparity list names them); a trial that fails under them names the switches that move it "
                  "(docs/perturbed-numerics.md)")
      ->envname("DEVPARITY_VDEV_PERTURB")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              vdev::perturb::parse(text, fmt::format("'{}'", text));
            } catch (const std::invalid_argument& e) {
              return e.what();
            }
            return "";
          },
          "SWITCHES"));
  run->add_option("--interleavings", c.interleavings,
                  "On the asynchronous vdev: run each vdev trial under N interleavings and report a result "
                  "that differs between them (docs/vdev-async.md)")
      ->check(whole_number_check(1, 1000))
      ->envname("DEVPARITY_VDEV_INTERLEAVINGS")
      ->capture_default_str();
}

// How `run` runs: isolation, limits, artifacts, shards, baseline, seed,
// console, placement, the simulated device.
void add_execution_options(CLI::App& run_app, RunCommandLine& o) {
  auto* run = &run_app;
  auto& c = o.config;
  run->add_option_function<std::string>(
         "--isolate", [&c](const std::string& v) { c.isolation.unit = parse_isolation(v, "--isolate"); },
                  "Run each trial (or each case: --isolate=case) in a worker process: a subject that "
                  "crashes, exits, hangs or exhausts memory costs only its own trials")
      ->expected(0, 1)
      ->default_str("trial")
      ->check(CLI::IsMember({"trial", "case"}));
  run->add_option("--timeout-s", c.timeout_s,
                  "A trial that runs longer is an error: under --isolate its worker is killed and "
                  "the run goes on; in this process the run stops there, reports written")
      ->check(seconds_check())
      ->capture_default_str();
  run->add_option("--memory-limit-mb", c.isolation.memory_limit_mb,
                  "Under --isolate, the workers' allocation limit (RLIMIT_DATA; 0: none); allocations past it "
                  "are out-of-memory errors of their trial (up to a petabyte: past it the byte count wraps)")
      ->check(whole_number_check(0, 1000000000))
      ->type_name("INT")
      ->capture_default_str();
  run->add_option("--worker", c.worker)->group("");  // Note [Workers]
  run->add_option("--artifacts", c.artifacts,
                  "Folder for failing parity trials' reference, output and |diff| (.npy), relative "
                  "to the report's folder (default: REPORT_STEM-artifacts)");
  run->add_option("--artifacts-budget", c.artifacts_budget_mb,
                  "Megabytes of artifacts at most (up to a petabyte); 0 writes none")
      ->check(number_check(0, 1e9))
      ->capture_default_str();
  run->add_option_function<std::string>(
         "--shard", [&c](const std::string& v) { parse_shard(v, c.plan); },
                  "I/N: run only the I-th of N deterministic parts of the plan (0 <= I < N; whole "
                  "trial groups); `devparity merge` combines the parts' reports")
      ->envname("DEVPARITY_SHARD");
  run->add_option("--baseline", c.baseline,
                  "A previous report: its failures that recur with the same failing checks do not "
                  "fail the run; new failures do; fixed ones are listed");
  run->add_flag("--require-all", c.require_all,
                "Fail the run (exit 1) when a case did not run on every device of the run: every one of its "
                "trials there was skipped (the device is absent, the op has no kernel there, autocast is "
                "unsupported); the summary lists where each case did not run whether or not this is set");
  run->add_option("--seed", c.plan.seed, "Base seed for inputs and parameters (default: each case's)")
      ->check(seed_check());
  auto* quiet = run->add_flag("-q,--quiet", c.console.quiet, "Print failures and the final line only");
  run->add_flag("-v,--verbose", c.console.verbose, "Print a line per trial")->excludes(quiet);
  run->add_option_function<std::string>(
         "--color", [&c](const std::string& v) { c.console.color = parse_color(v, "--color"); },
         "auto | always | never (auto: only on a terminal, and not when NO_COLOR is set)")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto");
  run->add_option("--progress-s", c.console.progress_s,
                  "When the output is not a terminal (a CI log): a progress line at least this often, with "
                  "done/planned, an estimate of what is left and the trial running; 0: none (at most a day; "
                  "shorter than 0.05 s is 0.05 s)")
      ->transform(progress_period_check())
      ->capture_default_str();
  run->add_option("--max-trials", c.max_trials,
                  "Refuse to start a run whose plan has more trials (0: no cap); plans of 100000 or more "
                  "are announced with an estimate")
      ->envname("DEVPARITY_MAX_TRIALS")
      ->check(whole_number_check(0, INT64_MAX))
      ->capture_default_str();

  run->add_option_function<std::string>(
         "--placement", [&c](const std::string& v) { c.placement = parse_placement(v, "--placement"); },
                  "warn: placement errors fail, warnings are reported (each case may ask for "
                  "strict); strict: warnings fail too, everywhere; off: no op tracing")
      ->check(CLI::IsMember({"warn", "strict", "off"}))
      ->envname("DEVPARITY_PLACEMENT")
      ->default_str("warn");

  add_vdev_options(*run, o);
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, Options& options) {
  options.run = std::make_shared<RunCommandLine>();
  auto& o = *options.run;
  auto& c = o.config;
  auto* run = app.add_subcommand("run", "Run suites of cases on the device matrix and write a report");
  auto* suite = run->add_option("--suite", c.suites,
                                "Case file (repeatable); default: cases/default.json");
  auto* torchscript =
      run->add_option("--torchscript", o.torchscript,
                      "Audit one TorchScript module whose forward takes one NCHW image and returns "
                      "one, with the default input patterns and tolerances (no case file)")
          ->excludes(suite);
  run->add_option("--shape", o.shape, "BxCxHxW of the --torchscript inputs")
      ->needs(torchscript)
      ->capture_default_str();
  run->add_option("--filter", c.plan.filter,
                  "Keep result ids matching POS[:POS]...[-NEG[:NEG]...] (globs with * and ?)");
  run->add_option("--devices", o.devices,
                  "auto | comma list of cpu, meta, cuda, cuda:<index>, cuda:N, vdev, vdev:<index>, "
                  "vdev:N")
      ->envname("DEVPARITY_DEVICES")
      ->capture_default_str();
  run->add_option_function<std::string>(
         "--dtypes",
         [&c](const std::string& v) { c.plan.dtypes = parsed("DEVPARITY_DTYPES", v, parse_dtype_list); },
                  "all | comma list of " + known_dtype_names() + " (default: each case's)")
      ->envname("DEVPARITY_DTYPES");
  run->add_option("--report", c.report, "JSON report path")->capture_default_str();
  run->add_option("--junit", o.junit, "Also write JUnit XML (a testsuite per case, a testcase per trial)");
  run->add_option("--reporter", o.reporters,
                  "Also report with the registered reporter NAME (devparity list names them), into "
                  "FILE or, without one, to standard output (repeatable; --junit F and --html F are "
                  "--reporter junit=F and --reporter html=F)");
  run->add_option("--html", o.html,
                  "Also write one self-contained HTML page: summary, filters, and per failure the "
                  "images and a |diff| heatmap");
  add_execution_options(*run, o);
  add_plugin_option(*run, options);
  return run;
}

namespace {

// --junit, --html and each --reporter NAME[=FILE], in that order.
std::vector<ReporterSpec> reporter_specs(const RunCommandLine& o) {
  std::vector<ReporterSpec> asked;
  if (!o.junit.empty()) asked.push_back({"--junit", "junit", o.junit});
  if (!o.html.empty()) asked.push_back({"--html", "html", o.html});
  for (const auto& spec : o.reporters) {
    const auto eq = spec.find('=');
    const auto name = spec.substr(0, eq);
    asked.push_back({"--reporter " + name, name, eq == std::string::npos ? "" : spec.substr(eq + 1)});
  }
  return asked;
}

// The bound configuration completed with what needed the whole command line.
RunConfig run_config(const Options& options, const DeviceInventory& inventory) {
  const auto& o = *options.run;
  RunConfig c = o.config;
  c.argv = options.argv;
  c.plan.devices =
      parsed("DEVPARITY_DEVICES", o.devices, [&](const std::string& v) { return parse_device_list(v, inventory); });
  // Note [Workers]: a worker runs this command line; --worker takes precedence.
  c.isolation.arguments.assign(options.argv.begin() + 1, options.argv.end());
  c.reporters = reporter_specs(o);
  return c;
}

}  // namespace

int cmd_run(const Options& options) {
  const auto& o = *options.run;
  const auto& bound = o.config;
  // From the start, so that a signal while suites load still leaves a report (empty, marked).
  if (bound.worker.empty()) {
    interrupt::install();
  } else {
    interrupt::release();  // a worker's parent stops it
  }
  // A huge grid takes a while to check and plan before the console reports anything.
  if (bound.worker.empty() && !bound.console.quiet) PhaseProgress::configure(bound.console.progress_s, &std::cout);
  // The run's vdev rows count whichever process installs the device (Note [One accelerator per process]).
  const auto inventory = DeviceInventory::probe(o.vdev_count);
  auto config = run_config(options, inventory);
  std::vector<Suite> suites;
  if (!o.torchscript.empty()) {
    config.suites = {o.torchscript};
    suites.push_back(torchscript_suite(o, inventory));
  } else {
    if (config.suites.empty()) config.suites.push_back(default_suite_path());
    for (const auto& path : config.suites) suites.push_back(load_suite(path, inventory));
  }
  const auto summary = run_session(config, suites, inventory);
  if (!config.worker.empty()) return 0;
  if (!config.console.quiet) std::cout << "report: " << config.report << "\n";
  return summary.exit_code();
}

}  // namespace devparity::cli
