// Issue 56, the newer features under hostile input: outputs that are not
// plain files or that are inputs, outputs two runs share, signals before the
// handler, reports that contradict themselves, runs where nothing ran, and
// options that did nothing or said the wrong thing. Each hostile case has its
// ordinary twin beside it.

#include "tests/support/cli_fixture.h"
#include "tests/support/tools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

namespace devparity {
namespace {

using nlohmann::json;
using testing::describe;
using testing::shell_quote;

class HostileInput : public testing::CliFixture {
 protected:
  // A passing report of four trials (two inputs on cpu and vdev:1), the twin every hostile variant is made from.
  void write_report(const std::string& name) {
    const auto r = cli("run --devices cpu,vdev:1 --filter 'hflip*' --dtypes float32 -q --report " + name);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
  }
  // `args`, started in the background once the front has held the stop signals
  // (while devparity-torch and LibTorch load), signalled with `signal`; the exit status.
  int signal_while_loading(const std::string& args, const char* signal) {
    const std::string script =
        "cd " + shell_quote(dir_.path()) + " || exit 1; NO_COLOR=1 " + shell_quote(DEVPARITY_BINARY) + " " + args +
        " >out.txt 2>err.txt & pid=$!; for i in $(seq 5000); do m=$(awk '/SigBlk/{print $2}' /proc/$pid/status " +
        "2>/dev/null); [ -n \"$m\" ] && [ $(( 0x$m >> 14 & 1 )) = 1 ] && break; done; kill -" + signal +
        " $pid; wait $pid; echo $? > rc.txt";
    EXPECT_EQ(std::system(("bash -c " + shell_quote(script)).c_str()), 0);
    return std::stoi(testing::read_text(dir_.file("rc.txt")));
  }
};

TEST_F(HostileInput, OutputsThatAreNotFilesAreWrittenThroughOrRefusedNeverReplaced) {
  write_report("r.json");
  // /dev/full: the write error is the exit status (it was 0, the node replaced by a file).
  auto r = cli("unpack r.json /dev/full");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("/dev/full: write failed: "), std::string::npos) << describe(r);
  // /dev/null takes it and stays a device.
  r = cli("unpack r.json /dev/null");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // A FIFO nobody reads is an error, not a hang nor a replaced node.
  ASSERT_EQ(::mkfifo(dir_.file("pipe").c_str(), 0644), 0);
  r = cli("unpack r.json pipe");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("a FIFO that nobody reads"), std::string::npos) << describe(r);
  ASSERT_EQ(::stat(dir_.file("pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  // A link to a report: the report is rewritten, the link stays.
  std::filesystem::create_symlink("r.json", dir_.file("latest.json"));
  r = cli("run --devices cpu --filter 'hflip*' --dtypes float32 -q --report latest.json --junit r.xml");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(std::filesystem::is_symlink(dir_.file("latest.json")));
  EXPECT_EQ(report("r.json")["results"].size(), 2u) << "the link's target holds the new run";
  // A run's report streams beside itself: a device is refused before anything runs.
  r = cli("run --devices cpu --filter 'hflip*' -q --report /dev/null");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("--report /dev/null: is a device or FIFO"), std::string::npos) << describe(r);
  EXPECT_FALSE(std::filesystem::exists("/dev/null.partial"));
  // ... while its JUnit may go to one.
  r = cli("run --devices cpu --filter 'hflip*' -q --report r2.json --junit /dev/null");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(HostileInput, AnOutputThatIsAnInputIsRefusedByEveryCommand) {
  write_report("old.json");
  write_report("new.json");
  const auto before = testing::read_text(dir_.file("old.json"));
  for (const auto& [args, said] : std::vector<std::pair<std::string, std::string>>{
           {"diff old.json new.json --html old.json", "--html old.json is also an input (old.json)"},
           {"diff old.json new.json --html ./new.json", "--html ./new.json is also an input (new.json)"},
           {"merge old.json old.json", "is also an input"},
           {"merge out.json old.json --junit old.json", "--junit old.json is also an input"},
           {"html old.json old.json", "is also an input"},
           {"unpack old.json old.json", "is also an input"},
           {"run --devices cpu --filter 'hflip*' --report old.json --baseline old.json",
            "--report old.json is also an input (old.json)"},
           {"run --devices cpu --filter 'hflip*' --report r.json --junit old.json --baseline old.json",
            "--junit old.json is also an input"},
           // The report's streamed log is an output too.
           {"run --devices cpu --filter 'hflip*' --report r.json --html r.json.partial",
            "--html and --report's log both name r.json.partial"}}) {
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << describe(r);
    EXPECT_NE(r.err.find(said), std::string::npos) << args << "\n" << describe(r);
  }
  EXPECT_EQ(testing::read_text(dir_.file("old.json")), before);
  // The twin: the same commands with outputs of their own.
  EXPECT_EQ(cli("diff old.json new.json --html d.html").exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir_.file("d.html")));
  EXPECT_EQ(cli("run --devices cpu --filter 'hflip*' -q --report r.json --baseline old.json").exit_code, 0);
}

// Two runs with different reports but one JUnit file: the second is refused while the first holds it.
TEST_F(HostileInput, EveryOutputIsLockedNotOnlyTheReport) {
  dir_.write("slow.json", json({{"cases", {{{"name", "stuck"}, {"subject", "crash_hang"}}}}}).dump());
  const std::string plugin = "--plugin " + shell_quote(DEVPARITY_CRASH_PLUGIN);
  const std::string script =
      "cd " + shell_quote(dir_.path()) + " || exit 1; NO_COLOR=1 " + shell_quote(DEVPARITY_BINARY) + " run " + plugin +
      " --suite slow.json --devices cpu,vdev:1 --isolate --timeout-s 120 --report a.json --junit shared.xml "
      ">out.txt 2>err.txt & pid=$!; for i in $(seq 1200); do grep -qF stuck/crash_hang/float32/cpu/ a.json.partial "
      "2>/dev/null && break; sleep 0.1; done; NO_COLOR=1 " + shell_quote(DEVPARITY_BINARY) + " run --devices cpu --filter 'hflip*' "
      "--report b.json --junit shared.xml >out2.txt 2>err2.txt; echo $? > rc2.txt; NO_COLOR=1 " +
      shell_quote(DEVPARITY_BINARY) + " run --devices cpu --filter 'hflip*' --report c.json --junit own.xml "
      ">out3.txt 2>err3.txt; echo $? > rc3.txt; kill -TERM $pid; wait $pid; echo $? > rc.txt";
  ASSERT_EQ(std::system(("bash -c " + shell_quote(script)).c_str()), 0);
  EXPECT_EQ(testing::read_text(dir_.file("rc2.txt")), "2\n") << testing::read_text(dir_.file("err2.txt"));
  EXPECT_NE(testing::read_text(dir_.file("err2.txt")).find("--junit shared.xml: another devparity run is writing this file"),
            std::string::npos)
      << testing::read_text(dir_.file("err2.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir_.file("b.json"))) << "refused before it ran";
  EXPECT_EQ(testing::read_text(dir_.file("rc3.txt")), "0\n") << "the twin, with a JUnit of its own, runs";
  EXPECT_EQ(testing::read_text(dir_.file("rc.txt")), "143\n");
  EXPECT_NE(testing::read_text(dir_.file("shared.xml")).find("interrupted"), std::string::npos);
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".devparity-lock"), std::string::npos)
        << "the lock is removed with its run: " << entry.path();
  }
}

// SIGINT, SIGTERM or SIGHUP while LibTorch loads (before main) left the previous run's green
// report and JUnit in place; now the run takes the signal at its handler and marks them.
TEST_F(HostileInput, ASignalWhileLibTorchLoadsMarksEveryOutput) {
  for (const auto& [signal, code, name] : std::vector<std::tuple<const char*, int, const char*>>{
           {"TERM", 143, "SIGTERM"}, {"INT", 130, "SIGINT"}, {"HUP", 129, "SIGHUP"}}) {
    write_report("r.json");  // the stale green report
    ASSERT_EQ(report("r.json")["summary"].value("passed", 0), 4);
    const int rc = signal_while_loading("run --devices cpu,vdev:1 --report r.json --junit r.xml", signal);
    EXPECT_EQ(rc, code) << signal << "\n" << testing::read_text(dir_.file("err.txt"));
    const auto rep = report("r.json");
    EXPECT_EQ(rep["summary"]["interrupted"]["signal"], name) << rep["summary"].dump();
    EXPECT_EQ(rep["results"].size(), 0u);
    EXPECT_NE(testing::read_text(dir_.file("r.xml")).find("type=\"interrupted\""), std::string::npos) << signal;
  }
  // The twin: without a signal the run replaces them with its own results.
  const auto r = cli("run --devices cpu --filter 'hflip*' -q --report r.json --junit r.xml");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(report("r.json")["summary"].contains("interrupted"));
}

TEST_F(HostileInput, AReportThatContradictsItselfIsRefusedByEveryReader) {
  write_report("good.json");
  ASSERT_EQ(cli("unpack good.json full.json").exit_code, 0);
  const auto full = json::parse(testing::read_text(dir_.file("full.json")));
  // A failing check under a packed report's default that says pass.
  auto lying = full;
  lying["results"][0]["checks"][0]["status"] = "fail";
  lying["results"][0].erase("status");
  lying["result_defaults"] = {{"status", "pass"}};
  dir_.write("defaults.json", lying.dump());
  // A row filed under another device than its id spells.
  auto moved = full;
  moved["results"][0]["device"] = "cuda:0";
  dir_.write("device.json", moved.dump());
  // A summary that counts what the results do not hold.
  auto counted = full;
  counted["summary"]["passed"] = 12;
  dir_.write("summary.json", counted.dump());
  for (const auto& [file, said] : std::vector<std::pair<std::string, std::string>>{
           {"defaults.json", "/results/0/status: the result says 'pass' but its checks decide 'fail'"},
           {"device.json", "/results/0/device: 'cuda:0' contradicts the result's id"},
           {"summary.json", "/summary/passed: the summary says 12 passed, but the report's results hold 4"}}) {
    for (const auto& command : {"merge m.json " + file, "diff good.json " + file, "unpack " + file + " u.json",
                                "html " + file + " h.html"}) {
      const auto r = cli(command);
      EXPECT_EQ(r.exit_code, 2) << command << "\n" << describe(r);
      EXPECT_NE(r.err.find(said), std::string::npos) << command << "\n" << describe(r);
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.file("m.json")));
  // The twins: the report as written, and in full, merge.
  for (const char* file : {"good.json", "full.json"}) {
    const auto r = cli(std::string("merge m.json ") + file);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_NE(r.out.find("4 passed, 0 failed"), std::string::npos) << describe(r);
  }
}

// A packed report of 2 MB that refers to one message 50,000 times unpacked to 10 GB.
TEST_F(HostileInput, APackedReportPastTheUnpackedBoundIsRefusedNamingTheVariable) {
  write_report("good.json");
  auto packed = json::parse(testing::read_text(dir_.file("good.json")));
  json ids = json::array();
  for (int i = 0; i < 30; ++i) ids.push_back("huge/hflip/float32/cuda:0/noise-" + std::to_string(i));
  packed["skipped"] = json::array({{{"result", {{"checks", json::array({{{"name", "run"}, {"status", "skip"},
                                                                         {"message", std::string(100000, 'm')}}})}}},
                                    {"ids", ids}}});
  packed["summary"]["skipped"] = 30;
  packed["summary"]["total"] = packed["summary"].value("total", 0) + 30;
  dir_.write("huge.json", packed.dump());
  ::setenv("DEVPARITY_MAX_UNPACKED_MB", "1", 1);
  for (const std::string command : {"unpack huge.json u.json", "diff good.json huge.json", "merge m.json huge.json"}) {
    const auto r = cli(command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << describe(r);
    EXPECT_NE(r.err.find("expands past the 1 MiB devparity unpacks (set DEVPARITY_MAX_UNPACKED_MB to raise it)"),
              std::string::npos)
        << command << "\n" << describe(r).substr(0, 3000);
  }
  ::setenv("DEVPARITY_MAX_UNPACKED_MB", "8", 1);
  const auto raised = cli("unpack huge.json u.json");
  ::unsetenv("DEVPARITY_MAX_UNPACKED_MB");
  EXPECT_EQ(raised.exit_code, 0) << "the variable raises the bound: " << describe(raised).substr(0, 3000);
  EXPECT_EQ(cli("unpack good.json u.json").exit_code, 0) << "the twin, under the default bound";
}

TEST_F(HostileInput, ARunWhereNothingRanSaysSoAndRequireAllFailsIt) {
  // cuda:0 on a machine (or build) without it: every row skips.
  auto r = cli("run --devices cuda:0 --filter 'hflip*' --report r.json");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out.find("PASSED"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("NOTHING RAN: 0 passed"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("ran nowhere (1 case, every trial skipped): hflip"), std::string::npos) << describe(r);
  auto rep = report("r.json");
  EXPECT_EQ(rep["summary"]["coverage"]["ran_nowhere"], json::array({"hflip"}));
  EXPECT_NE(testing::read_text(dir_.file("r.json")).find("\"ran_nowhere\""), std::string::npos);
  // On fewer devices than asked: said, and with --require-all a failure.
  r = cli("run --devices cpu,cuda:0 --filter 'hflip*' --report r.json");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("PASSED"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("not run on cuda:0 for 1 case: "), std::string::npos) << describe(r);
  rep = report("r.json");
  ASSERT_EQ(rep["summary"]["coverage"]["not_run"].size(), 1u);
  EXPECT_EQ(rep["summary"]["coverage"]["not_run"][0]["device"], "cuda:0");
  r = cli("run --devices cpu,cuda:0 --filter 'hflip*' --report r.json --require-all --html r.html");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_NE(r.out.find("FAILED"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("--require-all: a case did not run on every device of the run"), std::string::npos);
  EXPECT_EQ(report("r.json")["summary"]["coverage"]["required"], true);
  EXPECT_NE(testing::read_text(dir_.file("r.html")).find(">FAILED<"), std::string::npos);
  // Merged, the run is judged as it was: the merge kept its coverage (it turned it green).
  r = cli("merge m.json r.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_EQ(report("m.json")["summary"]["coverage"]["required"], true);
  // The twin: every device ran every case.
  r = cli("run --devices cpu,vdev:1 --filter 'hflip*' --report r.json --require-all");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(report("r.json")["summary"]["coverage"]["not_run"].size(), 0u);
  EXPECT_EQ(r.out.find("not run on"), std::string::npos) << describe(r);
  r = cli("merge m.json r.json");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
}

TEST_F(HostileInput, OptionsThatWouldDoNothingOrSayTheWrongThing) {
  for (const auto& [args, said] : std::vector<std::pair<std::string, std::string>>{
           {"run --devices cpu,vdev:1 --vdev-perturb ''", "--vdev-perturb: '': names no switch"},
           {"run --devices cpu,vdev:1 --vdev-perturb tf32,", "an empty switch name between commas"},
           {"run --devices cpu --filter 'hflip*' --vdev-perturb all",
            "the plan has no vdev row: nothing would be perturbed"},
           {"run --memory-limit-mb -1", "--memory-limit-mb: expected a whole number from 0 to 1000000000"},
           {"run --memory-limit-mb 17592186044416", "--memory-limit-mb: expected a whole number from 0 to 1000000000"},
           {"run --artifacts-budget -1", "--artifacts-budget: expected a number from 0 to 1000000000, got '-1'"},
           // Past these the clock's and the byte count's arithmetic overflowed.
           {"run --artifacts-budget 1e300", "--artifacts-budget: expected a number from 0 to 1000000000, got '1e300'"},
           {"run --timeout-s 1e300", "--timeout-s: expected a number of seconds above 0, up to 2592000 (30 days)"},
           {"run --vdev-count 17", "--vdev-count: expected a whole number from 1 to 16, got '17'"},
           {"jpeg-check x.jpg --min-psnr 300", "--min-psnr: expected a number from 0 to 200, got '300'"},
           {"diff a.json b.json --psnr-drop -2", "--psnr-drop: expected a number 0 or more, got '-2'"}}) {
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << describe(r);
    EXPECT_NE(r.err.find(said), std::string::npos) << args << "\n" << describe(r);
    EXPECT_EQ(r.err.find("1797693134862315"), std::string::npos) << "no 309-digit range: " << describe(r);
  }
  // A value from the environment is named as the user set it.
  for (const auto& [variable, value, said] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"DEVPARITY_MAX_TRIALS", "abc", "DEVPARITY_MAX_TRIALS=abc (the environment's value for --max-trials): "},
           {"DEVPARITY_VDEV_PERTURB", "bogus", "DEVPARITY_VDEV_PERTURB=bogus (the environment's value for --vdev-perturb)"}}) {
    ::setenv(variable.c_str(), value.c_str(), 1);
    const auto r = cli("run --devices cpu,vdev:1 --filter 'hflip*' --report r.json");
    ::unsetenv(variable.c_str());
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_NE(r.err.find(said), std::string::npos) << describe(r);
  }
  // all beside a name is all; a switch that moved no op of the run says so.
  auto r = cli("run --devices cpu,vdev:1 --filter 'hflip*' --dtypes float32 -q --report r.json --vdev-perturb all,tf32");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.err.find("unknown switch"), std::string::npos) << describe(r);
  r = cli("run --devices cpu,vdev:1 --filter 'hflip*' --dtypes float32 --report r.json --vdev-perturb tf32");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("warning: --vdev-perturb tf32: none of 2 vdev trials called an op these switches move; "
                       "nothing was perturbed"),
            std::string::npos)
      << describe(r);
  // The twin: a switch that moves the case's ops warns of nothing.
  r = cli("run --devices cpu,vdev:1 --filter 'resize*' --dtypes float32 --report r.json --vdev-perturb all");
  EXPECT_EQ(r.out.find("nothing was perturbed"), std::string::npos) << describe(r);
}

}  // namespace
}  // namespace devparity
