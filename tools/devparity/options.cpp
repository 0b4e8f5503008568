#include "tools/devparity/options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace devparity::cli {

std::string default_suite_path() {
  const std::string relative = "cases/default.json";
  if (std::filesystem::exists(relative)) return relative;
#ifdef DEVPARITY_SOURCE_DIR
  const std::string built_from = std::string(DEVPARITY_SOURCE_DIR) + "/" + relative;
  if (std::filesystem::exists(built_from)) return built_from;
#endif
  // Installed: <prefix>/bin/devparity and <prefix>/share/devparity/cases/.
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share/devparity" / relative;
    if (std::filesystem::exists(installed)) return installed.string();
  }
  return relative;
}

std::optional<int> parse_command_line(int argc, char** argv, Options& o) {
  for (int i = 0; i < argc; ++i) o.argv.emplace_back(argv[i]);

  CLI::App app{"devparity: proves image transforms give the same answer on every device, and "
               "says why when they don't.\nExit codes: 0 all checks passed, 1 a check failed, "
               "2 bad usage or bad input, 3 internal error."};
  app.name("devparity");
  app.set_version_flag("--version", std::string("devparity ") + DEVPARITY_VERSION);
  app.require_subcommand(1);

  auto* run = app.add_subcommand("run", "Run suites of cases on the device matrix and write a report");
  auto* suite = run->add_option("--suite", o.run.suites,
                                "Case file (repeatable); default: cases/default.json");
  auto* torchscript =
      run->add_option("--torchscript", o.run.torchscript,
                      "Audit one TorchScript module whose forward takes one NCHW image and returns "
                      "one, with the default input patterns and tolerances (no case file)")
          ->excludes(suite);
  run->add_option("--shape", o.run.shape, "BxCxHxW of the --torchscript inputs")
      ->needs(torchscript)
      ->capture_default_str();
  run->add_option("--filter", o.run.filter,
                  "Keep result ids matching POS[:POS]...[-NEG[:NEG]...] (globs with * and ?)");
  run->add_option("--devices", o.run.devices,
                  "auto | comma list of cpu, meta, cuda, cuda:<index>, cuda:N, vdev, vdev:<index>, "
                  "vdev:N")
      ->envname("DEVPARITY_DEVICES")
      ->capture_default_str();
  run->add_option("--dtypes", o.run.dtypes,
                  "all | comma list of uint8, float32, float64 (default: each case's)")
      ->envname("DEVPARITY_DTYPES");
  run->add_option("--report", o.run.report, "JSON report path")->capture_default_str();
  run->add_option("--junit", o.run.junit, "Also write JUnit XML (a testsuite per case, a testcase per trial)");
  run->add_option("--reporter", o.run.reporters,
                  "Also report with the registered reporter NAME (devparity list names them), into "
                  "FILE or, without one, to standard output (repeatable; --junit F and --html F are "
                  "--reporter junit=F and --reporter html=F)");
  run->add_option("--html", o.run.html,
                  "Also write one self-contained HTML page: summary, filters, and per failure the "
                  "images and a |diff| heatmap");
  run->add_option("--isolate", o.run.isolate,
                  "Run each trial (or each case: --isolate=case) in a worker process: a subject that "
                  "crashes, exits, hangs or exhausts memory costs only its own trials")
      ->expected(0, 1)
      ->default_str("trial")
      ->check(CLI::IsMember({"trial", "case"}));
  run->add_option("--timeout-s", o.run.timeout_s,
                  "A trial that runs longer is an error: under --isolate its worker is killed and "
                  "the run goes on; in this process the run stops there, reports written")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run->add_option("--memory-limit-mb", o.run.memory_limit_mb,
                  "Under --isolate, the workers' allocation limit (RLIMIT_DATA; 0: none); allocations past it "
                  "are out-of-memory errors of their trial")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  run->add_option("--worker", o.run.worker)->group("");  // Note [Workers]
  run->add_option("--artifacts", o.run.artifacts,
                  "Folder for failing parity trials' reference, output and |diff| (.npy), relative "
                  "to the report's folder (default: REPORT_STEM-artifacts)");
  run->add_option("--artifacts-budget", o.run.artifacts_budget_mb,
                  "Megabytes of artifacts at most; 0 writes none")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  run->add_option("--shard", o.run.shard,
                  "I/N: run only the I-th of N deterministic parts of the plan (0 <= I < N; whole "
                  "trial groups); `devparity merge` combines the parts' reports")
      ->envname("DEVPARITY_SHARD");
  run->add_option("--baseline", o.run.baseline,
                  "A previous report: its failures that recur with the same failing checks do not "
                  "fail the run; new failures do; fixed ones are listed");
  run->add_option("--seed", o.run.seed, "Base seed for inputs and parameters (default: each case's)")
      ->check(CLI::NonNegativeNumber);
  auto* quiet = run->add_flag("-q,--quiet", o.run.quiet, "Print failures and the final line only");
  run->add_flag("-v,--verbose", o.run.verbose, "Print a line per trial")->excludes(quiet);
  run->add_option("--color", o.run.color, "auto | always | never (auto: only on a terminal, "
                                         "and not when NO_COLOR is set)")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();

  run->add_option("--placement", o.run.placement,
                  "warn: placement errors fail, warnings are reported (each case may ask for "
                  "strict); strict: warnings fail too, everywhere; off: no op tracing")
      ->check(CLI::IsMember({"warn", "strict", "off"}))
      ->envname("DEVPARITY_PLACEMENT")
      ->capture_default_str();

  run->add_option("--vdev-count", o.run.vdev_count,
                  "Indices of the simulated accelerator vdev (1..16); auto runs vdev:0 and vdev:1 "
                  "when there is no CUDA device")
      ->check(CLI::Range(1, 16))
      ->envname("DEVPARITY_VDEV_COUNT")
      ->capture_default_str();

  const std::string plugin_help =
      "Shared library to load first (repeatable): it registers transforms or custom operators";
  run->add_option("--plugin", o.plugins, plugin_help);

  auto* list = app.add_subcommand("list", "List transforms (with parameters), checks, reporters, "
                                          "devices and the cases of suites");
  list->add_option("--suite", o.list.suites, "Case file (repeatable); default: cases/default.json");
  auto* list_json = list->add_flag("--json", o.list.json, "Machine-readable output");
  list->add_flag("--markdown", o.list.markdown,
                 "Only the transform catalog, as the Markdown table docs/transforms.md embeds")
      ->excludes(list_json);
  list->add_option("--plugin", o.plugins, plugin_help);

  auto* apply = app.add_subcommand("apply", "Run one subject once on a .npy input and write the "
                                            "output as .npy (reproduce a trial, or compare with "
                                            "another library)");
  apply->add_option("subject", o.apply.subject, "Transform name (see devparity list)")->required();
  apply->add_option("--input", o.apply.input, "Input .npy (NCHW)")->required();
  apply->add_option("--output", o.apply.output, "Output .npy")->required();
  apply->add_option("--params", o.apply.params, "Parameters as a JSON object")->capture_default_str();
  apply->add_option("--device", o.apply.device,
                    "cpu | cuda | cuda:<index> | cuda:N | vdev | vdev:<index> | vdev:N")
      ->capture_default_str();
  apply->add_option("--seed", o.apply.seed, "Seed for random parameters")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  apply->add_option("--plugin", o.plugins, plugin_help);

  auto* jpeg = app.add_subcommand("jpeg-check", "Validate JPEG files: markers, segment lengths and a "
                                                "strict libjpeg-turbo decode; with --reference, also "
                                                "how close each decodes to its source");
  jpeg->add_option("files", o.jpeg_check.files, "JPEG files")->required();
  jpeg->add_option("--reference", o.jpeg_check.reference,
                   "The source image (.npy CHW or HWC, uint8 or float in [0, 1]; or .png): a file "
                   "that decodes far from it is reported as noise");
  jpeg->add_option("--min-psnr", o.jpeg_check.min_psnr,
                   "PSNR floor in dB (default: by quality, estimated from the file's tables)")
      ->check(CLI::Range(0.0, 200.0));
  jpeg->add_option("--expect-size", o.jpeg_check.expect_size, "HxW the files must have, e.g. 2160x3840");
  jpeg->add_flag("--json", o.jpeg_check.json, "One JSON object per file, as an array");

  auto* diff = app.add_subcommand("diff", "Compare two reports result by result: new failures, "
                                          "fixes, status changes and statistics that moved; exit 1 "
                                          "on regressions");
  diff->add_option("old", o.diff.old_report, "The older report")->required();
  diff->add_option("new", o.diff.new_report, "The newer report")->required();
  diff->add_option("--format", o.diff.format, "text | md (for a pull-request comment) | json")
      ->check(CLI::IsMember({"text", "md", "json"}))
      ->capture_default_str();
  diff->add_option("--max-abs-growth", o.diff.max_abs_growth,
                   "Report a check's max |diff| that grew by more than this fraction")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  diff->add_option("--psnr-drop", o.diff.psnr_drop, "Report a PSNR that fell by more than this many dB")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();

  auto* merge = app.add_subcommand("merge", "Combine shard reports (run --shard I/N) into one; exit "
                                            "code as for run");
  merge->add_option("output", o.merge.output, "The merged report")->required();
  merge->add_option("inputs", o.merge.inputs, "Shard reports")->required();
  merge->add_option("--junit", o.merge.junit, "Also write JUnit XML of the merged report");
  merge->add_option("--html", o.merge.html, "Also write the HTML page of the merged report");

  auto* html = app.add_subcommand("html", "Render a report as one self-contained HTML page (images "
                                          "from its artifacts)");
  html->add_option("report", o.html.report, "The JSON report")->required();
  html->add_option("output", o.html.output, "The HTML file")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e, std::cout, std::cerr);
    return 2;
  }
  if (run->parsed()) o.command = "run";
  if (list->parsed()) o.command = "list";
  if (apply->parsed()) o.command = "apply";
  if (jpeg->parsed()) o.command = "jpeg-check";
  if (diff->parsed()) o.command = "diff";
  if (merge->parsed()) o.command = "merge";
  if (html->parsed()) o.command = "html";
  return std::nullopt;
}

}  // namespace devparity::cli
