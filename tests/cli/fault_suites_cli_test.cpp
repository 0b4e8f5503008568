// The seeded-fault suites through the executable: each fault fails where it
// must (vdev:1, meta) with its finding in the report; each clean twin passes.

#include "tests/support/schema.h"
#include "tests/support/cli_fixture.h"
#include "tests/support/tools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

namespace devparity {
namespace {

using nlohmann::json;
using testing::describe;
using testing::run_cli;
using testing::shell_quote;

class CliFaultSuites : public testing::CliFixture {};

TEST_F(CliFaultSuites, VdevFaultSuiteIsCaughtOnTheSecondIndex) {
  const auto suite = testing::source_path("tests/faults/vdev_faults.json");
  const auto r = run_cli("run --suite " + shell_quote(suite) + " --devices cpu,vdev:1,meta --report r.json",
                         dir_.path(), DEVPARITY_FAULTS_BINARY);
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_NE(r.out.find("vdev:1 (simulated)"), std::string::npos) << r.out;
  const auto report = testing::read_report_file(dir_.file("r.json"));
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  std::set<std::string> mismatches;  // case: op (devices)
  for (const auto& result : report["results"]) {
    const auto name = result["case"].get<std::string>();
    const bool clean = name.size() > 6 && name.substr(name.size() - 6) == "_clean";
    // Faults fail on vdev:1; the plain-member table also on meta (it is on the CPU).
    const bool expect_fail = !clean && (result["device"] == "vdev:1" ||
                                        (name == "jitter_plain_table" && result["device"] == "meta"));
    EXPECT_EQ(result["status"] == "fail", expect_fail) << result["id"] << ": " << result["message"];
    for (const auto& check : result["checks"]) {
      if (check["name"] != "placement") continue;
      for (const auto& f : check["findings"]) {
        if (f["kind"] == "device_mismatch_error") {
          mismatches.insert(name + ": " + f["op"].get<std::string>() + " (" +
                            f["device"].get<std::string>() + ")");
        }
      }
    }
  }
  EXPECT_EQ(mismatches, (std::set<std::string>{
                            "jitter_current_device: aten::index.Tensor (vdev:1 and vdev:0)",
                            "offset_device_type: aten::add.Tensor (vdev:1 and vdev:0)",
                            "jitter_plain_table: aten::index.Tensor (vdev:1 and cpu)",
                            "jitter_plain_table: aten::index.Tensor (meta and cpu)",
                            "state_device_type_move: aten::mul.Tensor (vdev:1 and vdev:0)"}));
  // The report says these devices are simulated and what that leaves out.
  for (const auto& d : report["environment"]["devices"]) {
    if (d["kind"] == "vdev") {
      EXPECT_TRUE(d["simulated"].get<bool>());
      EXPECT_NE(d["model"].get<std::string>().find("not modelled"), std::string::npos);
    }
  }
}

TEST_F(CliFaultSuites, PlacementFaultSuiteFailsWithTheFindingsInTheReport) {
  const auto suite = testing::source_path("tests/faults/placement_faults.json");
  const auto r = run_cli("run --suite " + shell_quote(suite) + " --devices cpu,meta --report r.json",
                         dir_.path(), DEVPARITY_FAULTS_BINARY);
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  const auto report = testing::read_report_file(dir_.file("r.json"));
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  // case -> device -> finding kinds (op)
  std::map<std::string, std::map<std::string, std::set<std::string>>> seen;
  for (const auto& result : report["results"]) {
    for (const auto& check : result["checks"]) {
      if (check["name"] != "placement") continue;
      for (const auto& f : check["findings"]) {
        seen[result["case"]][result["device"]].insert(f["kind"].get<std::string>() + " " +
                                                      f["op"].get<std::string>());
      }
    }
  }
  EXPECT_EQ(seen["jitter"]["meta"].count("foreign_device_input aten::index.Tensor"), 1u);
  EXPECT_EQ(seen["illumination"]["cpu"].count("implicit_device_factory aten::linspace"), 1u);
  EXPECT_EQ(seen["kernel"]["cpu"].count("implicit_device_factory aten::arange"), 1u);
  EXPECT_EQ(seen["item"]["cpu"].count("host_sync aten::item"), 1u);
  EXPECT_EQ(seen["cpu_output"]["meta"].count("wrong_device_output "), 1u);
  EXPECT_EQ(seen["state"]["meta"].count("state_off_device "), 1u);
  for (const char* clean : {"jitter_clean", "illumination_clean", "kernel_clean", "item_clean",
                            "cpu_output_clean", "state_clean"}) {
    EXPECT_EQ(seen.count(clean), 0u) << clean << " has findings";
  }
  // Verdicts, not only findings: every clean row passes; each fault fails
  // its placement check on some device (the item fault only warns: it passes).
  std::map<std::string, int> failing;
  for (const auto& result : report["results"]) {
    const auto name = result["case"].get<std::string>();
    if (name.size() > 6 && name.substr(name.size() - 6) == "_clean") {
      EXPECT_EQ(result["status"], "pass") << result["id"] << ": " << result["message"];
    } else if (result["status"] == "fail") {
      ++failing[name];
      bool placement_failed = false;
      for (const auto& check : result["checks"]) {
        placement_failed = placement_failed || (check["name"] == "placement" && check["status"] == "fail");
      }
      EXPECT_TRUE(placement_failed) << result["id"] << ": " << result["message"];
    }
  }
  for (const char* fault : {"jitter", "illumination", "kernel", "cpu_output", "state"}) {
    EXPECT_GT(failing[fault], 0) << fault << " did not fail";
  }
  EXPECT_EQ(failing.count("item"), 0u) << "a host sync is a warning unless --placement strict";
  int total = 0;
  for (const auto& kv : failing) total += kv.second;
  EXPECT_EQ(report["summary"]["failed"].get<int>(), total);
  // The console names the failing trials.
  EXPECT_NE(r.out.find("FAIL  jitter/fault_jitter_plain_table/float32/meta/"), std::string::npos) << r.out;
  // strict: the item fault's warning fails too.
  const auto strict = run_cli("run --suite " + shell_quote(suite) +
                                  " --devices cpu --placement strict --filter 'item/*' --report s.json",
                              dir_.path(), DEVPARITY_FAULTS_BINARY);
  EXPECT_EQ(strict.exit_code, 1) << describe(strict);
  const auto warn = run_cli("run --suite " + shell_quote(suite) +
                                " --devices cpu --filter 'item/*' --report w.json",
                            dir_.path(), DEVPARITY_FAULTS_BINARY);
  EXPECT_EQ(warn.exit_code, 0) << describe(warn);
  const auto off = run_cli("run --suite " + shell_quote(suite) +
                               " --devices cpu --placement off --filter 'illumination/*' --report o.json",
                           dir_.path(), DEVPARITY_FAULTS_BINARY);
  EXPECT_EQ(off.exit_code, 0) << "no tracing, no placement verdict\n" << describe(off);
}

}  // namespace
}  // namespace devparity
