// Isolation's units alone: the worker protocol (specs, selection, lines), the
// worker process (pipes, exit, group kill, output tail) and the supervisor
// driven by stand-in workers (shell scripts) that report, die or hang.
#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/run/worker_process.h"
#include "harness/run/worker_protocol.h"
#include "harness/run/worker_supervisor.h"
#include "harness/suite/plan.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

namespace devparity {
namespace {

using nlohmann::json;

std::string read_all(int fd) {
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<size_t>(n));
  close(fd);
  return out;
}

TEST(WorkerProtocol, SpecsRoundTrip) {
  const std::vector<WorkerItem> items = {{3, 1}, {4, -1}, {0, 0}};
  EXPECT_EQ(worker_spec(items), "3:1,4,0:0");
  const auto back = parse_worker_spec("3:1,4,0:0");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].group, 3u);
  EXPECT_EQ(back[0].trial, 1);
  EXPECT_EQ(back[1].trial, -1);
  EXPECT_EQ(back[2].trial, 0);
}

TEST(WorkerProtocol, MalformedSpecsAreUsageErrors) {
  for (const char* bad : {"", "x", "1:", ":2", "1:-1", "1;2", "1,,2"}) {
    EXPECT_THROW(parse_worker_spec(bad), UsageError) << bad;
  }
}

TEST(WorkerProtocol, ResultLinesRoundTripAndTornLinesAreIgnored) {
  TrialResult r;
  r.id = "c/resize/float32/vdev:1/ramp";
  r.case_name = "c";
  r.checks.push_back(CheckOutcome::verdict("run", Status::kPass, "ran \xff"));  // invalid UTF-8 is replaced
  r.finalize();
  const auto line = worker_result_line(r);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line per result";
  const auto back = parse_worker_line(line.substr(0, line.size() - 1));
  ASSERT_TRUE(back.result.has_value());
  EXPECT_FALSE(back.ready);
  EXPECT_EQ(back.result->id, r.id);
  EXPECT_EQ(back.result->status, Status::kPass);

  const auto ready = parse_worker_line(worker_ready_line().substr(0, worker_ready_line().size() - 1));
  EXPECT_TRUE(ready.ready);
  EXPECT_FALSE(ready.result.has_value());
  const auto torn = parse_worker_line(line.substr(0, line.size() / 2));
  EXPECT_FALSE(torn.ready);
  EXPECT_FALSE(torn.result.has_value());
}

class WorkerPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    const json suite = {{"cases",
                         {{{"name", "r"},
                           {"subject", "hflip"},
                           {"inputs", {{{"shape", {1, 1, 4, 4}}}, {{"shape", {1, 3, 4, 4}}}}},
                           {"dtypes", {"float32"}}}}}};
    suites_.push_back(load_suite(dir_.write("suite.json", suite.dump()), inventory_));
    PlanOptions o;
    o.devices = parse_device_list("cpu,meta", inventory_);
    plan_ = make_plan(suites_, o, inventory_);
    ASSERT_EQ(plan_.groups.size(), 2u);
    ASSERT_EQ(plan_.groups[0].trials.size(), 2u);
  }

  testing::TempDir dir_;
  DeviceInventory inventory_;
  std::vector<Suite> suites_;
  Plan plan_;
};

TEST_F(WorkerPlanTest, SelectionKeepsPlanOrderAndRefusesWhatThePlanLacks) {
  const auto selected = select_items(plan_, parse_worker_spec("1:1,0,1:0"));
  ASSERT_EQ(selected.groups.size(), 2u);
  EXPECT_EQ(selected.groups[0].trials.size(), 2u);  // all of group 0
  ASSERT_EQ(selected.groups[1].trials.size(), 2u);
  EXPECT_EQ(selected.groups[1].trials[0].id, plan_.groups[1].trials[0].id);  // plan order, not spec order
  EXPECT_THROW(select_items(plan_, parse_worker_spec("2")), UsageError);
  EXPECT_THROW(select_items(plan_, parse_worker_spec("0:2")), UsageError);
}

TEST_F(WorkerPlanTest, AnUnfinishedTrialIsARunErrorWithItsChecksSkipped) {
  const auto r = unfinished_trial(plan_, 1, 1, "the worker died of SIGSEGV");
  EXPECT_EQ(r.id, plan_.groups[1].trials[1].id);
  EXPECT_EQ(r.status, Status::kError);
  ASSERT_EQ(r.checks.size(), 1 + plan_.groups[1].spec->checks.size());
  EXPECT_EQ(r.checks[0].name, "run");
  EXPECT_EQ(r.checks[0].message, "the worker died of SIGSEGV");
  for (size_t i = 1; i < r.checks.size(); ++i) {
    EXPECT_EQ(r.checks[i].status, Status::kSkip);
    EXPECT_EQ(r.checks[i].message, "the worker did not finish the trial");
  }
}

// A stand-in worker: /bin/sh running `script`, which sees `--worker SPEC` as $1 $2.
IsolationOptions stand_in(const std::string& script, double timeout_s = 30) {
  IsolationOptions o;
  o.executable = "/bin/sh";
  o.arguments = {"-c", script, "sh"};
  o.timeout_s = timeout_s;
  return o;
}

std::vector<TrialResult> run_items(const IsolationOptions& o, const Plan& plan, const std::string& spec,
                                   bool* clean = nullptr) {
  std::vector<TrialResult> got;
  const bool ok = IsolatedExecutor(o).run(plan, parse_worker_spec(spec), [&](TrialResult& r) { got.push_back(r); });
  if (clean != nullptr) *clean = ok;
  return got;
}

TEST_F(WorkerPlanTest, AWorkerThatDiesCostsOnlyTheTrialsItOwed) {
  // Reports the first trial (and a duplicate and a stranger, both ignored), prints, then segfaults.
  TrialResult first = result_of(plan_.groups[0], plan_.groups[0].trials[0]);
  first.checks.push_back(CheckOutcome::verdict("run", Status::kPass, "ran"));
  first.finalize();
  TrialResult stranger = first;
  stranger.id = "not/in/the/plan";
  const auto line = worker_result_line(first), other = worker_result_line(stranger);
  const std::string script = "test \"$1\" = --worker && test \"$2\" = 0 || exit 9\n"
                             "cat '" + dir_.write("lines", worker_ready_line() + line + line + other) + "' >&3\n"
                             "echo 'loading the model'; echo 'about to crash' >&2\n"
                             "kill -SEGV $$\n";
  bool clean = true;
  const auto got = run_items(stand_in(script), plan_, "0", &clean);
  EXPECT_FALSE(clean);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].id, first.id);
  EXPECT_EQ(got[0].status, Status::kPass);
  EXPECT_EQ(got[1].id, plan_.groups[0].trials[1].id);
  EXPECT_EQ(got[1].status, Status::kError);
  const auto why = got[1].checks[0].message;
  EXPECT_NE(why.find("the worker died of SIGSEGV, a segmentation fault"), std::string::npos) << why;
  EXPECT_NE(why.find("last output: loading the model | about to crash"), std::string::npos) << why;
}

TEST_F(WorkerPlanTest, TheFirstUnfinishedTrialCarriesTheCauseTheRestSayNotRun) {
  const auto got = run_items(stand_in("exit 4"), plan_, "1");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].checks[0].message, "the worker exited with status 4");
  EXPECT_EQ(got[1].checks[0].message,
            "not run: the worker exited with status 4 during an earlier trial of the same worker");
}

TEST_F(WorkerPlanTest, AWorkerSilentPastTheTimeoutIsKilledWithWhatItStarted) {
  // Ready at once, then hangs (with a child that would outlive a plain kill).
  const auto start = std::chrono::steady_clock::now();
  const auto got = run_items(stand_in("cat '" + dir_.write("ready", worker_ready_line()) + "' >&3; sleep 60 & sleep 60", 0.5),
                             plan_, "0:1");
  const auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].checks[0].message, "timeout: no result for 0.5 s (--timeout-s); the worker was killed");
  EXPECT_LT(took, 20.0) << "the worker's group was not killed: the pipes stayed open";
}

TEST_F(WorkerPlanTest, AWorkerThatCannotStartSaysSo) {
  auto o = stand_in("");
  o.executable = dir_.path() + "/no-such-devparity";
  o.arguments.clear();
  const auto got = run_items(o, plan_, "0:0");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].checks[0].message, "the worker could not be started (" + o.executable + ")");
}

TEST(WorkerProcess, ResultsAndOutputArriveOnTheirOwnPipes) {
  const WorkerProcess w({{"/bin/sh", "-c", "echo result >&3; echo out; echo err >&2; exit 3"}, 0});
  EXPECT_EQ(read_all(w.results_fd()), "result\n");
  EXPECT_EQ(read_all(w.output_fd()), "out\nerr\n");
  const int status = w.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
}

TEST(WorkerProcess, TheMemoryLimitBoundsWhatTheWorkerAllocates) {
  // 64 MiB of data: a shell reading 200 MB into a variable runs out.
  const WorkerProcess w({{"/bin/sh", "-c", "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo done"}, 64});
  read_all(w.results_fd());
  EXPECT_EQ(read_all(w.output_fd()).find("done"), std::string::npos);
  const int status = w.wait();
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(WorkerProcess, SignalsAreNamedInWords) {
  EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV, a segmentation fault");
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL (killed; the kernel's out-of-memory killer does this)");
  EXPECT_NE(signal_name(SIGUSR1).find("signal 10 ("), std::string::npos) << signal_name(SIGUSR1);
}

TEST(WorkerProcess, TheOutputTailKeepsTheLastEightLinesEachCut) {
  OutputTail tail;
  std::string text;
  for (int i = 0; i < 12; ++i) text += "line " + std::to_string(i) + "\n\n";
  tail.add(text.data(), text.size() - 3);  // the last line arrives in two pieces
  tail.add(text.data() + text.size() - 3, 3);
  EXPECT_EQ(tail.text(), "line 4 | line 5 | line 6 | line 7 | line 8 | line 9 | line 10 | line 11");
  OutputTail long_line;
  const std::string big(5000, 'x');
  long_line.add(big.data(), big.size());  // no newline: kept once past 4096 characters
  EXPECT_EQ(long_line.text(), std::string(297, 'x') + "...");
}

}  // namespace
}  // namespace devparity
