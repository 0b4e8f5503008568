// A gate that never falls over: isolation of subjects that crash, hang or
// exhaust memory (the crash plugin), interrupted runs, kill -9 and the
// streamed log, out-of-memory in the process, and determinism.

#include "tests/support/cli_fixture.h"
#include "tests/support/schema.h"
#include "tests/support/tools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

namespace devparity {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::describe;
using testing::run_cli;
using testing::shell_quote;

std::string crash_plugin() { return "--plugin " + shell_quote(DEVPARITY_CRASH_PLUGIN); }

// A case that passes, one that never returns off the CPU, and one after it.
json stuck_suite() {
  return {{"cases",
           {{{"name", "first"}, {"subject", "resize"}, {"params", {{"size", {9, 9}}}}, {"dtypes", {"float32"}}},
            {{"name", "stuck"}, {"subject", "crash_hang"}},
            {{"name", "never"}, {"subject", "resize"}, {"params", {{"size", {9, 9}}}}}}}};
}

class Robustness : public testing::CliFixture {
 protected:
  // Runs `args` in the background, waits until its result log (r.json.partial)
  // holds `reported` (at most 120 s, so a loaded machine is waited for rather
  // than signalled early), lets it run `seconds` more, sends `signal`, and
  // returns the exit status.
  int run_and_signal(const std::string& args, const std::string& reported, double seconds, const char* signal) {
    const std::string script = "cd " + shell_quote(dir_.path()) + " || exit 1; NO_COLOR=1 " + shell_quote(DEVPARITY_BINARY) +
                               " " + args + " >out.txt 2>err.txt & pid=$!; for i in $(seq 1200); do grep -qF " +
                               shell_quote(reported) + " r.json.partial 2>/dev/null && break; sleep 0.1; done; sleep " +
                               std::to_string(seconds) + "; kill -" + signal + " $pid; wait $pid; echo $? > rc.txt";
    EXPECT_EQ(std::system(("bash -c " + shell_quote(script)).c_str()), 0);
    return std::stoi(testing::read_text(dir_.file("rc.txt")));
  }
};

TEST_F(Robustness, IsolatedRunSurvivesSegfaultAbortExitHangAndMemoryExhaustion) {
  const auto suite = testing::source_path("tests/faults/isolation_faults.json");
  const auto r = cli("run " + crash_plugin() + " --suite " + shell_quote(suite) +
                     " --devices cpu,vdev:1 --isolate --timeout-s 5 --memory-limit-mb 3072 --report r.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const auto rep = report("r.json");
  std::map<std::string, std::string> status, message;
  for (const auto& result : rep["results"]) {
    const auto key = result["case"].get<std::string>() + "/" + result["device"].get<std::string>();
    status[key] = result["status"];
    message[key] = result["message"];
  }
  EXPECT_EQ(status.size(), 16u);
  // Every other result intact: the clean cases, and the bad subjects' CPU rows.
  for (const char* c : {"clean_before", "clean_after", "segfault", "abort", "exit", "hang", "huge_allocation",
                        "exhaust_memory"}) {
    EXPECT_EQ(status[std::string(c) + "/cpu"], "pass") << c << ": " << message[std::string(c) + "/cpu"];
  }
  for (const char* c : {"clean_before", "clean_after"}) EXPECT_EQ(status[std::string(c) + "/vdev:1"], "pass") << c;
  // Each bad trial named with its cause.
  const std::map<std::string, std::string> causes = {
      {"segfault", "the worker died of SIGSEGV"},
      {"abort", "the worker died of SIGABRT"},
      {"exit", "the worker exited with status 3"},
      {"hang", "timeout: no result for 5 s"},
      {"huge_allocation", "out of memory on vdev:1: an allocation of 4398046511104 bytes"},
      {"exhaust_memory", "out of memory on vdev:1"},
  };
  for (const auto& [c, cause] : causes) {
    EXPECT_EQ(status[c + "/vdev:1"], "error") << c;
    EXPECT_NE(message[c + "/vdev:1"].find(cause), std::string::npos) << c << ": " << message[c + "/vdev:1"];
  }
  EXPECT_EQ(rep["run"]["isolate"], "trial");
}

// Note [Worker start]: --timeout-s times trials, not the worker's start
// (loading LibTorch takes longer than 0.3 s): a clean trial passes under it.
TEST_F(Robustness, IsolatedTimeoutStartsWhenTheWorkerIsReady) {
  dir_.write("clean.json", R"({"cases": [{"name": "c", "subject": "hflip", "dtypes": ["float32"],
                                 "inputs": [{"pattern": "noise", "shape": [1, 3, 8, 8]}]}]})");
  const auto r = cli("run --suite clean.json --devices cpu,vdev:1 --isolate --timeout-s 0.3 --report r.json");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out.find("timeout"), std::string::npos) << r.out;
}

TEST_F(Robustness, CaseIsolationReportsTheTrialsAWorkerLeftUndone) {
  dir_.write("suite.json", json({{"cases", {{{"name", "segfault"}, {"subject", "crash_segfault"}}}}}).dump());
  const auto r = cli("run " + crash_plugin() + " --suite suite.json --devices cpu,vdev:0,vdev:1 --isolate=case "
                     "--report r.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  std::map<std::string, std::string> message;
  const auto rep = report("r.json");
  for (const auto& result : rep["results"]) message[result["device"]] = result["message"];
  EXPECT_EQ(message.size(), 3u);
  EXPECT_NE(message["vdev:0"].find("the worker died of SIGSEGV"), std::string::npos) << message["vdev:0"];
  EXPECT_NE(message["vdev:1"].find("not run: the worker died of SIGSEGV"), std::string::npos) << message["vdev:1"];
  EXPECT_NE(message["vdev:1"].find("during an earlier trial of the same worker"), std::string::npos) << message["vdev:1"];
}

TEST_F(Robustness, OutOfMemoryInTheProcessIsAnErrorAndTheRunGoesOn) {
  dir_.write("suite.json", json({{"cases",
                                  {{{"name", "huge"}, {"subject", "crash_huge_allocation"}},
                                   {{"name", "after"}, {"subject", "resize"}, {"params", {{"size", {9, 9}}}},
                                    {"dtypes", {"float32"}}}}}})
                               .dump());
  const auto r = cli("run " + crash_plugin() + " --suite suite.json --devices cpu,vdev:1 --report r.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const auto rep = report("r.json");
  for (const auto& result : rep["results"]) {
    if (result["case"] == "huge" && result["device"] == "vdev:1") {
      EXPECT_EQ(result["status"], "error");
      EXPECT_EQ(result["checks"][0]["stats"]["requested_bytes"], int64_t{1} << 42);
      EXPECT_EQ(result["checks"][0]["stats"]["error_kind"], "out_of_memory");
    } else {
      EXPECT_EQ(result["status"], "pass") << result["id"];
    }
  }
}

TEST_F(Robustness, SigtermMidRunLeavesAValidReportMarkedInterrupted) {
  dir_.write("suite.json", stuck_suite().dump());
  const int rc = run_and_signal("run " + crash_plugin() + " --suite suite.json --devices cpu,vdev:1 --isolate "
                                "--timeout-s 120 --report r.json --junit r.xml --html r.html",
                                "stuck/crash_hang/float32/cpu/", 1, "TERM");
  EXPECT_EQ(rc, 143) << testing::read_text(dir_.file("out.txt")) << testing::read_text(dir_.file("err.txt"));
  const auto rep = report("r.json");
  EXPECT_EQ(rep["summary"]["interrupted"]["signal"], "SIGTERM");
  std::map<std::string, std::string> status;
  for (const auto& result : rep["results"]) status[result["id"]] = result["status"];
  EXPECT_EQ(status["first/resize/float32/cpu/noise-1x3x17x11"], "pass");
  EXPECT_EQ(status["stuck/crash_hang/float32/cpu/noise-1x3x17x11"], "pass");
  EXPECT_EQ(status.count("stuck/crash_hang/float32/vdev:1/noise-1x3x17x11"), 0u) << "abandoned, not reported";
  EXPECT_EQ(status.count("never/resize/float32/cpu/noise-1x3x17x11"), 0u);
  const auto console = testing::read_text(dir_.file("out.txt"));
  EXPECT_NE(console.find("INTERRUPTED"), std::string::npos) << console;
  EXPECT_NE(console.find("planned trials did not run"), std::string::npos) << console;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("r.json.partial")));
  // Every format says so (issue 36): a CI system reading the JUnit file alone sees an error.
  const auto junit = testing::read_text(dir_.file("r.xml"));
  EXPECT_NE(junit.find("<error message=\"interrupted by SIGTERM: "), std::string::npos) << junit;
  EXPECT_NE(junit.find("planned trials did not run\" type=\"interrupted\""), std::string::npos) << junit;
  const auto html = testing::read_text(dir_.file("r.html"));
  EXPECT_NE(html.find(">INTERRUPTED</span>"), std::string::npos);
  EXPECT_EQ(html.find(">PASSED</span>"), std::string::npos);
  DEVPARITY_NEEDS(testing::have_tool("xmllint"),
                  "xmllint is not installed (Debian: libxml2-utils; tools/setup.sh installs it)");
  const auto lint = run_cli("--noout --schema " + shell_quote(testing::source_path("tests/junit/junit.xsd")) + " r.xml",
                            dir_.path(), "xmllint");
  EXPECT_EQ(lint.exit_code, 0) << describe(lint) << "\n" << junit;
}

TEST_F(Robustness, SignalBeforeTheFirstTrialLeavesAnEmptyMarkedReport) {
  // 1.2 million variant-inputs to validate: the signal lands while the suite loads.
  nlohmann::json sizes = nlohmann::json::array(), inputs = nlohmann::json::array();
  for (int w = 1; w <= 300; ++w) sizes.push_back({4, w});
  for (int w = 0; w < 1000; ++w) inputs.push_back({{"pattern", "noise"}, {"shape", {1, 3, 8, 8 + w}}});
  dir_.write("huge.json", nlohmann::json{{"suite", "huge"},
                                         {"cases", {{{"name", "huge"}, {"subject", "resize"},
                                                     {"grid", {{"size", sizes}, {"interpolation", {"nearest", "bilinear", "bicubic", "area"}}}},
                                                     {"inputs", inputs}, {"dtypes", {"float32"}}}}}}
                              .dump());
  for (const char* signal : {"INT", "TERM"}) {
    // Sent once the handler is in place (/proc's caught-signal mask), well before the 10 s load ends.
    const std::string script =
        "cd " + shell_quote(dir_.path()) + " || exit 1; rm -f r.json r.xml r.html; NO_COLOR=1 " +
        shell_quote(DEVPARITY_BINARY) + " run --suite huge.json --report r.json --junit r.xml --html r.html "
        ">out.txt 2>err.txt & pid=$!; for i in $(seq 400); do m=$(awk '/SigCgt/{print $2}' /proc/$pid/status); "
        "[ $(( 0x$m >> 14 & 1 )) = 1 ] && break; sleep 0.01; done; kill -" + signal + " $pid; wait $pid; echo $? > rc.txt";
    ASSERT_EQ(std::system(("bash -c " + shell_quote(script)).c_str()), 0);
    const int rc = std::stoi(testing::read_text(dir_.file("rc.txt")));
    EXPECT_EQ(rc, std::string(signal) == "INT" ? 130 : 143) << testing::read_text(dir_.file("err.txt"));
    const auto rep = report("r.json");
    EXPECT_EQ(rep["summary"]["interrupted"]["signal"], std::string("SIG") + signal);
    EXPECT_EQ(rep["results"].size(), 0u);
    EXPECT_NE(rep["summary"]["interrupted"]["message"].get<std::string>().find("before its first trial"), std::string::npos);
    EXPECT_NE(testing::read_text(dir_.file("r.xml")).find("type=\"interrupted\""), std::string::npos);
    EXPECT_NE(testing::read_text(dir_.file("r.html")).find(">INTERRUPTED</span>"), std::string::npos);
    EXPECT_NE(testing::read_text(dir_.file("out.txt")).find("before the first trial"), std::string::npos);
  }
}

// Every output is checked before the first trial (issue 36): a clash, a path
// that cannot be written, or a report another run is writing is exit 2 naming
// the option and the path, and nothing ran.
TEST_F(Robustness, OutputsAreCheckedBeforeTheFirstTrial) {
  dir_.write("suite.json", stuck_suite().dump());
  dir_.write("a_file", "x");
  std::filesystem::create_directories(dir_.file("a_folder"));
  const std::string run = "run " + crash_plugin() + " --suite suite.json --devices cpu --filter 'first*' ";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--report r.json --junit r.json", "--report and --junit both name r.json"},
      {"--report out/r.json --html out/../out/r.json", "--report and --html both name out/../out/r.json"},
      {"--report r.json --junit r.xml --reporter junit=./r.xml", "--junit and --reporter junit both name ./r.xml"},
      {"--report r.json --artifacts r.xml --junit r.xml", "both name"},
      {"--report r.json --junit a_file/r.xml", "--junit a_file/r.xml: cannot be written: "},
      {"--report r.json --html a_folder", "--html a_folder: is a folder"},
      {"--report r.json --artifacts a_file", "--artifacts "},
      {"--report a_file/r.json", "--report a_file/r.json: cannot be written"},
  };
  for (const auto& [args, expected] : bad) {
    const auto r = cli(run + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << describe(r);
    EXPECT_NE(r.err.find(expected), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.out.find("PASSED"), std::string::npos) << "nothing runs: " << args;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.file("r.json")));
  EXPECT_FALSE(std::filesystem::exists(dir_.file("r-artifacts"))) << "checking makes nothing";

  // A second run on a report another run is writing is refused, and the first one's log survives.
  const std::string script =
      "cd " + shell_quote(dir_.path()) + " || exit 1; NO_COLOR=1 " + shell_quote(DEVPARITY_BINARY) + " run " +
      crash_plugin() + " --suite suite.json --devices cpu,vdev:1 --isolate --timeout-s 120 --report r.json "
      ">out.txt 2>err.txt & pid=$!; for i in $(seq 1200); do grep -qF stuck/crash_hang/float32/cpu/ r.json.partial 2>/dev/null && break; "
      "sleep 0.1; done; NO_COLOR=1 " + shell_quote(DEVPARITY_BINARY) + " run " + crash_plugin() +
      " --suite suite.json --devices cpu --report r.json >out2.txt 2>err2.txt; echo $? > rc2.txt; cp r.json.partial during.partial; "
      "kill -TERM $pid; wait $pid; echo $? > rc.txt";
  ASSERT_EQ(std::system(("bash -c " + shell_quote(script)).c_str()), 0);
  EXPECT_EQ(testing::read_text(dir_.file("rc2.txt")), "2\n") << testing::read_text(dir_.file("err2.txt"));
  EXPECT_NE(testing::read_text(dir_.file("err2.txt")).find("another devparity run is writing this report"),
            std::string::npos);
  EXPECT_NE(testing::read_text(dir_.file("during.partial")).find("stuck/crash_hang/float32/cpu/"), std::string::npos)
      << "the second run truncated the first one's log";
  EXPECT_EQ(testing::read_text(dir_.file("rc.txt")), "143\n");
  EXPECT_EQ(report("r.json")["summary"]["interrupted"]["signal"], "SIGTERM");
}

// Note [In-process timeout]: without --isolate, a trial that does not return
// after SIGTERM is abandoned within seconds, not at --timeout-s.
TEST_F(Robustness, SigtermOnAStuckTrialInProcessStopsWithinSeconds) {
  dir_.write("suite.json", stuck_suite().dump());
  const auto started = std::chrono::steady_clock::now();
  const int rc = run_and_signal("run " + crash_plugin() + " --suite suite.json --devices cpu,vdev:1 --timeout-s 120 "
                                "--report r.json --junit r.xml",
                                "stuck/crash_hang/float32/cpu/", 1, "TERM");
  EXPECT_EQ(rc, 143) << testing::read_text(dir_.file("out.txt")) << testing::read_text(dir_.file("err.txt"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  const auto rep = report("r.json");
  EXPECT_EQ(rep["summary"]["interrupted"]["signal"], "SIGTERM");
  std::map<std::string, std::string> status;
  for (const auto& result : rep["results"]) status[result["id"]] = result["status"];
  EXPECT_EQ(status["stuck/crash_hang/float32/cpu/noise-1x3x17x11"], "pass");
  EXPECT_EQ(status.count("stuck/crash_hang/float32/vdev:1/noise-1x3x17x11"), 0u) << "abandoned, not reported";
  EXPECT_NE(testing::read_text(dir_.file("r.xml")).find("type=\"interrupted\""), std::string::npos);
  EXPECT_NE(testing::read_text(dir_.file("out.txt")).find("INTERRUPTED"), std::string::npos);
}

TEST_F(Robustness, KillNineLeavesALogThatMergeTurnsIntoAReport) {
  dir_.write("suite.json", stuck_suite().dump());
  // In-process: the hang takes the whole run with it.
  const int rc = run_and_signal("run " + crash_plugin() + " --suite suite.json --devices cpu,vdev:1 --report r.json",
                                "stuck/crash_hang/float32/cpu/", 1, "KILL");
  EXPECT_EQ(rc, 137);
  EXPECT_FALSE(std::filesystem::exists(dir_.file("r.json")));
  ASSERT_TRUE(std::filesystem::exists(dir_.file("r.json.partial")));
  // A log of a run that did not finish is refused unless asked for, naming it.
  const auto refused = cli("merge rebuilt.json r.json.partial");
  EXPECT_EQ(refused.exit_code, 2) << describe(refused);
  EXPECT_NE(refused.err.find("r.json.partial is of a run that did not finish"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--allow-partial"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("rebuilt.json")));
  const auto m = cli("merge rebuilt.json r.json.partial --allow-partial");
  EXPECT_EQ(m.exit_code, 0) << describe(m);
  const auto rep = report("rebuilt.json");
  EXPECT_NE(rep["summary"]["interrupted"]["message"].get<std::string>().find("did not finish"), std::string::npos);
  EXPECT_EQ(rep["summary"]["interrupted"]["message"].get<std::string>().find("was cut"), std::string::npos);
  std::set<std::string> ids;
  for (const auto& result : rep["results"]) ids.insert(result["id"]);
  EXPECT_EQ(ids.count("first/resize/float32/vdev:1/noise-1x3x17x11"), 1u);
  EXPECT_EQ(ids.count("stuck/crash_hang/float32/cpu/noise-1x3x17x11"), 1u);
  EXPECT_EQ(ids.count("stuck/crash_hang/float32/vdev:1/noise-1x3x17x11"), 0u);

  // A last line cut by the kill is dropped and said; a bad line before it is damage.
  const auto log = testing::read_text(dir_.file("r.json.partial"));
  dir_.write("torn.json.partial", log + log.substr(log.rfind('\n', log.size() - 2) + 1, 40));
  const auto torn = cli("merge torn.json torn.json.partial --allow-partial");
  EXPECT_EQ(torn.exit_code, 0) << describe(torn);
  const auto torn_message = report("torn.json")["summary"]["interrupted"]["message"].get<std::string>();
  EXPECT_NE(torn_message.find("its last line (" + std::to_string(std::count(log.begin(), log.end(), '\n') + 1) +
                              ") was cut and dropped"),
            std::string::npos) << torn_message;
  EXPECT_EQ(report("torn.json")["results"].size(), rep["results"].size());
  const auto second_line = log.find('\n') + 1;
  dir_.write("damaged.json.partial", log.substr(0, second_line) + "{\"type\": \"res\n" + log.substr(second_line));
  const auto damaged = cli("merge d.json damaged.json.partial --allow-partial");
  EXPECT_EQ(damaged.exit_code, 2) << describe(damaged);
  EXPECT_NE(damaged.err.find("damaged.json.partial:2: not a complete JSON line"), std::string::npos) << damaged.err;
}

TEST_F(Robustness, InProcessTimeoutStopsTheRunWithItsReports) {
  dir_.write("suite.json", stuck_suite().dump());
  const auto r = cli("run " + crash_plugin() + " --suite suite.json --devices cpu,vdev:1 --timeout-s 2 "
                     "--report r.json --junit r.xml");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_NE(r.out.find("STOPPED: stuck/crash_hang/float32/vdev:1/noise-1x3x17x11 ran past --timeout-s 2 s"),
            std::string::npos) << r.out;
  const auto rep = report("r.json");
  EXPECT_EQ(rep["summary"]["interrupted"]["signal"], "timeout");
  std::map<std::string, std::string> status;
  for (const auto& result : rep["results"]) status[result["id"]] = result["status"];
  EXPECT_EQ(status.size(), 4u);
  EXPECT_EQ(status["stuck/crash_hang/float32/vdev:1/noise-1x3x17x11"], "error");
  EXPECT_TRUE(std::filesystem::exists(dir_.file("r.xml")));
}

// Strips what may differ between two runs of the same command.
void strip_times(json& j) {
  if (j.is_object()) {
    for (const char* key : {"duration_ms", "duration_s", "started_at"}) j.erase(key);
    // The run check's message says how long the subject took.
    if (j.contains("name") && j["name"] == "run" && j.contains("message") &&
        j["message"].get<std::string>().rfind("ran on ", 0) == 0) {
      j.erase("message");
    }
    for (auto& [k, v] : j.items()) strip_times(v);
  } else if (j.is_array()) {
    for (auto& v : j) strip_times(v);
  }
}

TEST_F(Robustness, HostileInputIsBadInputNamedNeverACrashOrAHang) {
  // Issue 36: 100,000 levels of JSON crashed run, list and diff; /dev/zero was read without end;
  // a directory given to jpeg-check was an internal error.
  const std::string deep = "{\"cases\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  dir_.write("deep.json", deep);
  dir_.write("twice.json",
                      R"({"cases": [{"name": "a", "subject": "resize", "subject": "hflip"}]})");
  std::filesystem::create_directory(dir_.file("folder"));
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"run --suite deep.json --devices cpu", "deep.json:1:266: JSON nested deeper than 256 levels"},
      {"list --suite deep.json", "nested deeper than 256 levels"},
      {"diff deep.json deep.json", "nested deeper than 256 levels"},
      {"run --suite twice.json --devices cpu", "/cases/0/subject: the key is given twice in one object"},
      {"run --suite folder --devices cpu", "folder: is a directory, not a file"},
      {"run --suite /dev/zero --devices cpu", "/dev/zero: more than the 1 MiB devparity reads as input"},
      {"merge out.json /dev/zero", "/dev/zero: more than the 1 MiB"},
      {"jpeg-check folder", "folder: unreadable: is a directory, not a file"},
      {"jpeg-check /dev/zero", "/dev/zero: unreadable: more than the 1 MiB"},
  };
  ::setenv("DEVPARITY_MAX_INPUT_MB", "1", 1);
  for (const auto& [args, said] : refused) {
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << describe(r);
    EXPECT_NE((r.err + r.out).find(said), std::string::npos) << args << "\n" << describe(r);
  }
  ::setenv("DEVPARITY_MAX_INPUT_MB", "none", 1);
  const auto r = cli("list --suite twice.json");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("DEVPARITY_MAX_INPUT_MB='none'"), std::string::npos) << describe(r);
  ::unsetenv("DEVPARITY_MAX_INPUT_MB");
}

TEST_F(Robustness, TheSameCommandTwiceGivesTheSameVerdictsAndStatistics) {
  dir_.write("suite.json",
             json({{"cases",
                    {{{"name", "jitter"}, {"subject", "planckian_jitter"}, {"params", {{"p", 0.75}}},
                      {"inputs", {{{"pattern", "noise"}, {"shape", {4, 3, 17, 11}}}}}},
                     {{"name", "illumination"}, {"subject", "gaussian_illumination"}},
                     {{"name", "resize"}, {"subject", "resize"}, {"params", {{"size", {9, 13}}}},
                      {"grid", {{"interpolation", {"bilinear", "bicubic", "area"}}}}},
                     {{"name", "mismatch"}, {"subject", "resize"}, {"params", {{"size", {9, 9}}, {"interpolation", "nearest"}}},
                      {"reference", {{"params", {{"interpolation", "bilinear"}}}}}}}}})
                 .dump());
  for (const char* name : {"a.json", "b.json"}) {
    // The same artifact folder for both, so that the paths in them match too.
    const auto r = cli(std::string("run --suite suite.json --devices cpu,meta,vdev:1 --artifacts art --report ") +
                       name + " -q");
    EXPECT_EQ(r.exit_code, 1) << describe(r);
  }
  auto a = report("a.json")["results"], b = report("b.json")["results"];
  strip_times(a);
  strip_times(b);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].dump(), b[i].dump()) << a[i]["id"];
  }
}

}  // namespace
}  // namespace devparity
