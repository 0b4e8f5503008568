// TorchScript subjects and plugins through the executable: every fixture of
// tests/fixtures/torchscript audited with --torchscript and in suites, the
// case-file errors, and the example plugin's transforms and custom operator.

#include "tests/support/cli_fixture.h"
#include "tests/support/schema.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>

namespace devparity {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::describe;
using testing::run_cli;
using testing::shell_quote;

std::string fixture(const std::string& name) {
  return testing::source_path("tests/fixtures/torchscript/" + name + ".pt");
}

std::string plugin_flag() { return "--plugin " + shell_quote(DEVPARITY_EXAMPLE_PLUGIN); }

// case -> device -> finding kinds with severity error or warning.
using Kinds = std::map<std::string, std::map<std::string, std::set<std::string>>>;

Kinds finding_kinds(const json& report) {
  Kinds out;
  for (const auto& result : report["results"]) {
    for (const auto& check : result["checks"]) {
      for (const auto& f : check.value("findings", json::array())) {
        if (f["severity"] == "note") continue;
        out[result["case"]][result["device"]].insert(f["kind"].get<std::string>());
      }
    }
  }
  return out;
}

class TorchScriptCli : public testing::CliFixture {
 protected:
  // Runs the shorthand on cpu and meta; returns the kinds over all devices.
  std::set<std::string> shorthand(const std::string& name, int expected_exit,
                                  const std::string& extra = "--devices cpu,meta") {
    const auto r = cli("run --torchscript " + shell_quote(fixture(name)) + " " + extra + " --report r.json");
    EXPECT_EQ(r.exit_code, expected_exit) << name << "\n" << describe(r);
    std::set<std::string> kinds;
    for (const auto& [c, devices] : finding_kinds(report("r.json"))) {
      for (const auto& [d, k] : devices) kinds.insert(k.begin(), k.end());
    }
    return kinds;
  }
};

TEST_F(TorchScriptCli, EachFaultyFixtureFailsWithItsFindingKind) {
  // Each with what shows it: meta has no data, so a .cpu() or .item() there
  // is "unsupported on meta" (a skip); a device with data shows the result
  // coming home, and a warning fails in strict mode.
  struct Fault {
    const char* name;
    const char* kind;
    const char* args;
  };
  const Fault faults[] = {
      {"gain_unregistered", "unregistered_tensor_state", "--devices cpu,meta"},
      {"gain_cpu_output", "wrong_device_output", "--devices cpu,meta,vdev:1"},
      {"ramp_arange", "implicit_device_factory", "--devices cpu,meta"},
      {"normalize_item", "host_sync", "--devices cpu,meta --placement strict"},
      // A warning by itself; the branch shows as a parity failure on a device.
      {"halve_device_branch", "device_dependent_code", "--devices cpu,vdev:1 --dtypes uint8"},
  };
  for (const auto& f : faults) {
    const auto kinds = shorthand(f.name, 1, f.args);
    EXPECT_EQ(kinds.count(f.kind), 1u) << f.name << " lacks " << f.kind;
  }
  // Found but not failing where the device cannot tell.
  EXPECT_EQ(shorthand("normalize_item", 0).count("host_sync"), 1u);
  EXPECT_EQ(shorthand("halve_device_branch", 0).count("device_dependent_code"), 1u);
}

TEST_F(TorchScriptCli, EachCleanTwinPassesOnCpuAndMeta) {
  for (const char* name : {"gain_clean", "ramp_clean", "normalize_clean", "halve_clean"}) {
    EXPECT_EQ(shorthand(name, 0), std::set<std::string>{}) << name;
  }
  const auto r = report("r.json");
  EXPECT_EQ(r["run"]["suites"][0], fixture("halve_clean"));
  EXPECT_EQ(r["environment"]["torchscript"]["graph_executor_optimize"], false);
}

TEST_F(TorchScriptCli, FindingsNameTheScriptedSourceLine) {
  (void)cli("run --torchscript " + shell_quote(fixture("ramp_arange")) + " --devices cpu --report r.json");
  bool found = false;
  const auto rep = report("r.json");
  for (const auto& result : rep["results"]) {
    for (const auto& check : result["checks"]) {
      for (const auto& f : check.value("findings", json::array())) {
        if (f["op"] != "aten::arange") continue;
        found = true;
        // The helper two calls below forward, at the line of the factory.
        EXPECT_EQ(f["scopes"].back(), "ramp_values") << f.dump();
        const auto source = f.value("source", "");
        EXPECT_EQ(source.rfind("tools/make_torchscript_fixtures.py:", 0), 0u) << f.dump();
      }
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(TorchScriptCli, VirtualDeviceShowsWhatMetaCannot) {
  // The CPU result returned from vdev:1, and the device branch's ±1 in uint8.
  EXPECT_EQ(shorthand("gain_cpu_output", 1, "--devices cpu,vdev:1").count("wrong_device_output"), 1u);
  const auto r = cli("run --torchscript " + shell_quote(fixture("halve_device_branch")) +
                     " --devices cpu,vdev:1 --dtypes uint8 --report r.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  bool parity_failed = false;
  const auto rep = report("r.json");
  for (const auto& result : rep["results"]) {
    for (const auto& check : result["checks"]) {
      if (check["name"] == "parity" && check["status"] == "fail") {
        parity_failed = true;
        EXPECT_EQ(result["device"], "vdev:1");
        EXPECT_EQ(check["stats"]["max_abs"], 1.0) << check.dump();
      }
    }
  }
  EXPECT_TRUE(parity_failed);
}

TEST_F(TorchScriptCli, SuitesReportFaultsByKind) {
  const auto faulty = cli("run --suite " + shell_quote(testing::source_path("cases/examples/torchscript.json")) +
                          " --report f.json");
  EXPECT_EQ(faulty.exit_code, 1) << describe(faulty);
  const auto kinds = finding_kinds(report("f.json"));
  EXPECT_EQ(kinds.at("gain_unregistered").at("cpu").count("unregistered_tensor_state"), 1u);
  EXPECT_EQ(kinds.at("gain_unregistered").at("vdev:1").count("device_mismatch_error"), 1u);
  EXPECT_EQ(kinds.at("gain_cpu_output").at("vdev:1").count("wrong_device_output"), 1u);
  EXPECT_EQ(kinds.at("ramp_arange").at("cpu").count("implicit_device_factory"), 1u);
  EXPECT_EQ(kinds.at("normalize_item").at("cpu").count("host_sync"), 1u);
  EXPECT_EQ(kinds.at("halve_device_branch").at("meta").count("device_dependent_code"), 1u);
  for (const char* clean : {"gain_clean", "ramp_clean", "normalize_clean", "halve_clean"}) {
    EXPECT_EQ(kinds.count(clean), 0u) << clean;
  }
  // Note [Root cause]: four bugs, four problems, each on every device it failed, whatever
  // the finding's kind there (an arange's implicit_device_factory on the CPU, its
  // device_mismatch_error elsewhere; the CPU row's .cpu() and the accelerators').
  EXPECT_NE(faulty.out.find("failures: 4 problems in 13 trials"), std::string::npos) << faulty.out;
  EXPECT_NE(faulty.out.find("4 trials on cpu, vdev:0, vdev:1, meta -- implicit_device_factory in aten::arange"),
            std::string::npos) << faulty.out;
  EXPECT_NE(faulty.out.find("3 trials on cpu, vdev:0, vdev:1 -- wrong_device_output"), std::string::npos)
      << faulty.out;
  const auto clean = cli("run --suite " +
                         shell_quote(testing::source_path("cases/examples/torchscript_clean.json")) +
                         " --report c.json");
  EXPECT_EQ(clean.exit_code, 0) << describe(clean);
  // blend's extra tensor argument followed it to every device; its gradient
  // was checked.
  int blend_rows = 0;
  const auto rep = report("c.json");
  for (const auto& result : rep["results"]) {
    if (result["case"] != "blend" || result["status"] != "pass") continue;
    ++blend_rows;
    for (const auto& check : result["checks"]) {
      if (check["name"] == "gradient" && result["device"] == "cpu") {
        EXPECT_EQ(check["status"], "pass");
      }
    }
  }
  EXPECT_GE(blend_rows, 8);  // 2 alphas x cpu, meta, vdev:0, vdev:1
}

// The summary's unsupported ops come from the results, so isolated workers' count too (issue 37).
TEST_F(TorchScriptCli, UnsupportedOpsAreSummarisedInEveryIsolation) {
  for (const std::string isolate : {"", " --isolate", " --isolate=case"}) {
    const auto r = cli("run --suite " + shell_quote(testing::source_path("cases/examples/torchscript.json")) +
                       " --filter 'normalize_item*' --devices cpu,meta --report u.json" + isolate);
    EXPECT_LE(r.exit_code, 1) << describe(r);
    const auto ops = report("u.json")["summary"]["unsupported_ops"];
    EXPECT_EQ(ops.value("meta", json::array()), json::array({"aten::_local_scalar_dense"})) << isolate << ops.dump();
  }
}

// One bad case file per error kind: exit 2, file:line:column, the field's
// pointer and what was expected.
TEST_F(TorchScriptCli, CaseFileErrorsSayWhereAndWhat) {
  const auto gain = fixture("gain_clean");
  const auto blend = fixture("blend");
  dir_.write("not_torchscript.pt", "this is not a zip archive\n");
  struct Bad {
    const char* what;
    std::string text;
    std::string expected;
  };
  const std::vector<Bad> cases = {
      {"syntax error", "{\"cases\": [\n  {\"name\": \"a\", \"subject\": }]}\n", "bad.json:2:"},
      {"wrong type",
       "{\"cases\": [{\"name\": \"a\", \"subject\": {\"torchscript\": 5}}]}",
       "/cases/0/subject/torchscript: expected a string"},
      {"unknown field",
       "{\"cases\": [{\"name\": \"a\", \"subject\": {\"torchscript\": \"" + gain + "\", \"methd\": \"forward\"}}]}",
       "/cases/0/subject/methd: unknown field"},
      {"unknown subject name", "{\"cases\": [{\"name\": \"a\", \"subject\": \"no_such_thing\"}]}",
       "/cases/0/subject: unknown subject 'no_such_thing'"},
      {"unknown subject kind", "{\"cases\": [{\"name\": \"a\", \"subject\": {\"onnx\": \"m.onnx\"}}]}",
       "/cases/0/subject: unknown subject kind"},
      {"missing .pt", "{\"cases\": [{\"name\": \"a\", \"subject\": {\"torchscript\": \"missing.pt\"}}]}",
       "/cases/0/subject/torchscript: cannot read '"},
      {"not TorchScript",
       "{\"cases\": [{\"name\": \"a\", \"subject\": {\"torchscript\": \"not_torchscript.pt\"}}]}",
       "/cases/0/subject/torchscript: cannot load '"},
      {"signature mismatch (too few)",
       "{\"cases\": [{\"name\": \"a\", \"subject\": {\"torchscript\": \"" + blend + "\"}}]}",
       "forward takes 3 argument(s) after self, the case gives 1 and 'other' has no default: "
       "forward(x: Tensor, other: Tensor, alpha: float) -> Tensor"},
      {"signature mismatch (type)",
       "{\"cases\": [{\"name\": \"a\", \"subject\": {\"torchscript\": \"" + blend +
           "\", \"arguments\": [\"image\", {\"scalar\": 1.0}, {\"scalar\": 0.5}]}}]}",
       "/cases/0/subject/arguments/1: argument 'other' of forward is Tensor, the case gives a scalar"},
      {"no such method",
       "{\"cases\": [{\"name\": \"a\", \"subject\": {\"torchscript\": \"" + gain + "\", \"method\": \"backward\"}}]}",
       "/cases/0/subject/method: the module has no method 'backward' (it has: forward)"},
      {"param of the wrong type",
       "{\"cases\": [{\"name\": \"a\", \"subject\": {\"torchscript\": \"" + blend +
           "\", \"arguments\": [\"image\", {\"tensor\": {}}, {\"param\": \"alpha\"}]}, "
           "\"params\": {\"alpha\": \"half\"}}]}",
       "/cases/0/params/alpha: expected a number (the argument is float)"},
      {"custom operator without its plugin",
       "{\"cases\": [{\"name\": \"a\", \"subject\": {\"torchscript\": \"" + fixture("jpeg_op") + "\"}}]}",
       "load the library that registers it with --plugin"},
  };
  for (const auto& bad : cases) {
    dir_.write("bad.json", bad.text);
    const auto r = cli("run --suite bad.json --devices cpu");
    EXPECT_EQ(r.exit_code, 2) << bad.what << "\n" << describe(r);
    EXPECT_NE(r.err.find(bad.expected), std::string::npos) << bad.what << "\n" << r.err;
    EXPECT_NE(r.err.find("bad.json:"), std::string::npos) << bad.what << "\n" << r.err;
  }
}

TEST_F(TorchScriptCli, ShorthandErrors) {
  auto r = cli("run --torchscript missing.pt");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("--torchscript: cannot read 'missing.pt'"), std::string::npos) << r.err;
  r = cli("run --torchscript " + shell_quote(fixture("gain_clean")) + " --shape 1x3x17");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("expected BxCxHxW"), std::string::npos) << r.err;
  r = cli("run --torchscript " + shell_quote(fixture("blend")));
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("'other' has no default"), std::string::npos) << r.err;
  r = cli("run --torchscript " + shell_quote(fixture("gain_clean")) + " --suite x.json");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
}

TEST_F(TorchScriptCli, ExamplePluginIsAudited) {
  const auto r = cli("run " + plugin_flag() + " --suite " +
                     shell_quote(testing::source_path("examples/plugin/cases.json")) + " --report p.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const auto rep = report("p.json");
  ASSERT_EQ(rep["environment"]["plugins"].size(), 1u);
  const auto transforms = rep["environment"]["plugins"][0]["transforms"];
  EXPECT_EQ(transforms, json({"example_channel_gain", "example_channel_gain_plain"}));
  std::map<std::string, std::map<std::string, std::string>> status;  // case -> device -> status
  for (const auto& result : rep["results"]) {
    if (result["status"] != "skip") status[result["case"]][result["device"]] = result["status"];
  }
  for (const char* device : {"cpu", "meta", "vdev:0", "vdev:1"}) {
    EXPECT_EQ(status["gain"][device], "pass") << device;
  }
  // Note [Recorded storages]: a C++ plain member is caught where it is on another device.
  EXPECT_EQ(status["gain_plain"]["cpu"], "pass");
  EXPECT_EQ(status["gain_plain"]["meta"], "fail");
  EXPECT_EQ(status["gain_plain"]["vdev:1"], "fail");
  for (const char* device : {"cpu", "vdev:0", "vdev:1"}) {
    EXPECT_EQ(status["jpeg_op"][device], "pass") << device;
  }
  auto kinds = finding_kinds(rep);
  EXPECT_EQ(kinds["gain_plain"]["vdev:1"].count("device_mismatch_error"), 1u);
}

TEST_F(TorchScriptCli, CustomOperatorOutputGoesThroughTheJpegCheck) {
  const auto r = cli("run " + plugin_flag() + " --suite " +
                     shell_quote(testing::source_path("cases/examples/torchscript_jpeg_op.json")) +
                     " --devices cpu,vdev:1 --report j.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const auto rep = report("j.json");
  for (const auto& result : rep["results"]) {
    for (const auto& check : result["checks"]) {
      if (check["name"] != "jpeg") continue;
      if (result["case"] == "jpeg_op") {
        EXPECT_EQ(check["status"], "pass") << check.dump();
      } else {
        EXPECT_EQ(check["status"], "fail") << check.dump();
        EXPECT_NE(check["message"].get<std::string>().find("corrupt"), std::string::npos) << check.dump();
      }
    }
  }
}

TEST_F(TorchScriptCli, PluginErrors) {
  auto r = cli("run --plugin no/such/lib.so --devices cpu");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("no/such/lib.so"), std::string::npos) << r.err;
  dir_.write("fake.so", "not a shared library");
  r = cli("list --plugin ./fake.so");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("fake.so"), std::string::npos) << r.err;
  // Loading it twice registers nothing twice: a clear error, not a crash.
  r = cli("list " + plugin_flag() + " " + plugin_flag());
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  r = cli("list " + plugin_flag());
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("example_channel_gain_plain"), std::string::npos) << r.out;
  // A second copy of the library registers the same names again: refused
  // with LibTorch's reason (its operator namespace is taken).
  std::filesystem::copy_file(DEVPARITY_EXAMPLE_PLUGIN, dir_.file("copy.so"));
  r = cli("list " + plugin_flag() + " --plugin ./copy.so");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("copy.so: its registration threw: Only a single TORCH_LIBRARY"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace devparity
