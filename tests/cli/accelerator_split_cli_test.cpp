// Note [One accelerator per process] through the executable: who registered
// what. A run without vdev rows never installs the simulated device (an H100
// run had it installed on load, and CUDA's backward asserted); a run whose vdev
// rows leave for a worker (with CUDA rows, or --vdev-worker) gives the verdicts
// of one process while the process that writes the report never installs it.

#include "tests/support/cli_fixture.h"
#include "tests/support/schema.h"
#include "tests/support/tools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>

namespace devparity {
namespace {

using nlohmann::json;
using testing::describe;
using testing::run_cli;
using testing::shell_quote;

class AcceleratorSplitCli : public testing::CliFixture {
 protected:
  // Each result's status and its checks' statuses, by id.
  static std::map<std::string, std::string> verdicts(const json& report) {
    std::map<std::string, std::string> out;
    for (const auto& r : report["results"]) {
      auto& line = out[r["id"].get<std::string>()];
      line = r["status"].get<std::string>();
      for (const auto& c : r["checks"]) line += " " + c["name"].get<std::string>() + "=" + c["status"].get<std::string>();
    }
    return out;
  }

  json run_faults(const std::string& extra, const std::string& report_name) {
    const auto suite = testing::source_path("tests/faults/vdev_faults.json");
    const auto r = run_cli("run --suite " + shell_quote(suite) + " --devices cpu,vdev:1,meta --report " + report_name +
                               " " + extra,
                           dir_.path(), DEVPARITY_FAULTS_BINARY);
    EXPECT_EQ(r.exit_code, 1) << describe(r);  // the faults fail, their clean twins pass
    return report(report_name);
  }
};

TEST_F(AcceleratorSplitCli, VdevRowsInAWorkerGiveTheVerdictsOfOneProcess) {
  const auto here = run_faults("", "here.json");
  const auto apart = run_faults("--vdev-worker", "apart.json");
  EXPECT_EQ(verdicts(apart), verdicts(here));
  ASSERT_FALSE(verdicts(here).empty());
  // Who registered what: the twin run installed vdev in its own process; the split run left it to the worker.
  EXPECT_TRUE(here["environment"]["vdev_installed"].get<bool>());
  EXPECT_FALSE(here["run"].contains("worker_devices"));
  EXPECT_FALSE(apart["environment"]["vdev_installed"].get<bool>());
  EXPECT_EQ(apart["run"]["worker_devices"], json::array({"vdev"}));
  if (!here["environment"]["accelerator"].is_null()) {  // LibTorch 2.x: installing names the accelerator
    EXPECT_EQ(here["environment"]["accelerator"], "vdev");
    EXPECT_NE(apart["environment"]["accelerator"], "vdev");
  }
}

TEST_F(AcceleratorSplitCli, TheWorkersFailingTrialsKeepTheirEvidenceAndWhatMovedThem) {
  // Parity failures on vdev:1 alone: a float32 matmul under TF32 (--vdev-perturb tf32).
  const json suite = {{"cases",
                       {{{"name", "tf32"}, {"subject", "fault_perturb_tf32_color_matrix"},
                         {"inputs", {{{"pattern", "noise"}, {"shape", {2, 3, 29, 37}}}}}, {"dtypes", {"float32"}}}}}};
  const auto path = dir_.write("perturb.json", suite.dump());
  std::map<std::string, std::string> found[2];
  for (int apart = 0; apart < 2; ++apart) {
    const auto name = apart ? "apart.json" : "here.json";
    const auto r = run_cli("run --suite " + shell_quote(path) + " --devices cpu,vdev:1 --vdev-perturb tf32 --report " +
                               name + (apart ? " --vdev-worker" : ""),
                           dir_.path(), DEVPARITY_FAULTS_BINARY);
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    const auto rep = report(name);
    found[apart] = verdicts(rep);
    int kept = 0;
    for (const auto& res : rep["results"]) {
      if (res["device"] != "vdev:1") continue;
      EXPECT_EQ(res["status"], "fail") << res["id"];
      EXPECT_EQ(res["perturbed"]["blamed"], json::array({"tf32"})) << res["id"];
      for (const auto& c : res["checks"]) {
        for (const auto& a : c.value("artifacts", json::array())) {
          EXPECT_TRUE(std::filesystem::exists(dir_.file(a["path"].get<std::string>()))) << a["path"];
          ++kept;
        }
      }
    }
    EXPECT_GT(kept, 0) << name;
  }
  EXPECT_EQ(found[1], found[0]);
}

TEST_F(AcceleratorSplitCli, ARunWithoutVdevRowsNeverInstallsTheSimulatedDevice) {
  for (const char* devices : {"cpu,cuda:0,meta", "cpu,cuda:0,cuda:N"}) {
    const auto r = cli(std::string("run --filter 'resize_*' --dtypes float32 --devices ") + devices + " --report r.json");
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    const auto rep = report("r.json");
    EXPECT_FALSE(rep["environment"]["vdev_installed"].get<bool>()) << devices;
    if (!rep["environment"]["accelerator"].is_null()) {
      EXPECT_NE(rep["environment"]["accelerator"], "vdev") << devices;
    }
  }
}

TEST_F(AcceleratorSplitCli, AWorkerThatDiesLeavesEachOfItsTrialsAnErrorNamingIt) {
  const json suite = {{"cases",
                       {{{"name", "first"}, {"subject", "resize"}, {"params", {{"size", {9, 9}}}}, {"dtypes", {"float32"}}},
                        {{"name", "dies"}, {"subject", "crash_segfault"}},
                        {{"name", "after"}, {"subject", "resize"}, {"params", {{"size", {9, 9}}}}, {"dtypes", {"float32"}}}}}};
  const auto path = dir_.write("crash.json", suite.dump());
  const auto r = cli("run --plugin " + shell_quote(DEVPARITY_CRASH_PLUGIN) + " --suite " + shell_quote(path) +
                     " --devices cpu,vdev:1 --vdev-worker --report r.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  std::map<std::string, json> by_case_device;
  const auto rep = report("r.json");
  for (const auto& res : rep["results"]) {
    by_case_device[res["case"].get<std::string>() + "@" + res["device"].get<std::string>()] = res;
  }
  EXPECT_EQ(by_case_device["first@vdev:1"]["status"], "pass");
  EXPECT_EQ(by_case_device["first@cpu"]["status"], "pass");
  EXPECT_EQ(by_case_device["dies@cpu"]["status"], "pass") << by_case_device["dies@cpu"];
  const auto died = by_case_device["dies@vdev:1"];
  EXPECT_EQ(died["status"], "error");
  EXPECT_NE(died["message"].get<std::string>().find("SIGSEGV"), std::string::npos) << died["message"];
  // The worker's later trials were not run; this process's were.
  EXPECT_EQ(by_case_device["after@cpu"]["status"], "pass");
  EXPECT_EQ(by_case_device["after@vdev:1"]["status"], "error");
  EXPECT_NE(by_case_device["after@vdev:1"]["message"].get<std::string>().find("not run"), std::string::npos);
}

TEST_F(AcceleratorSplitCli, CaseIsolationGivesTheLeavingTrialsWorkersOfTheirOwn) {
  const auto here = run_faults("--isolate case", "here.json");
  const auto apart = run_faults("--isolate case --vdev-worker", "apart.json");
  EXPECT_EQ(verdicts(apart), verdicts(here));
}

}  // namespace
}  // namespace devparity
