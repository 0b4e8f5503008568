// Precision on code devparity did not write: torchvision's own scriptable
// transforms (tests/realworld/torchvision.json, made from Debian's
// python3-torchvision by tools/make_realworld_corpus.py) pass on cpu, meta,
// vdev:0 and vdev:1 with no error finding, every warning saying why; the
// torchvision-style fault twins next to them are each caught with their
// kind, and their clean twins pass.

#include "harness/vdev/vdev.h"
#include "tests/support/cli.h"
#include "tests/support/schema.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <string>

namespace devparity {
namespace {

using json = nlohmann::json;
using testing::describe;
using testing::run_cli;
using testing::shell_quote;

// Every device this build has: cpu and meta always, the simulated
// accelerator where it is compiled in.
std::vector<std::string> devices() {
  std::vector<std::string> out = {"cpu", "meta"};
  if (vdev::compiled()) out.insert(out.end(), {"vdev:0", "vdev:1"});
  return out;
}

class RealWorld : public ::testing::Test {
 protected:
  // Whether the vdev rows' own assertions can run: the caller returns when
  // not (a skip with the reason; under CI a missing simulator fails).
  bool vdev_rows() {
    if (vdev::compiled()) return true;
    if (std::getenv("CI") != nullptr) {
      ADD_FAILURE() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
    } else {
      // GTEST_SKIP returns: it records the skip from a lambda of its own.
      [] { GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV): vdev:0 and vdev:1 are absent"; }();
    }
    return false;
  }

  // Runs a corpus suite on every device; returns the report.
  json run(const std::string& suite, int expected_exit, const std::string& extra = "") {
    std::string list;
    for (const auto& d : devices()) list += (list.empty() ? "" : ",") + d;
    const auto r = run_cli("run --suite " + shell_quote(testing::source_path("tests/realworld/" + suite)) +
                               " --devices " + list + " --report r.json " + extra,
                           dir_.path());
    EXPECT_EQ(r.exit_code, expected_exit) << describe(r);
    auto report = testing::read_report_file(dir_.file("r.json"));
    EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
    return report;
  }

  testing::TempDir dir_;
};

const json& check(const json& result, const std::string& name) {
  for (const auto& c : result["checks"]) {
    if (c["name"] == name) return c;
  }
  static const json none = json::object();
  return none;
}

TEST_F(RealWorld, TheCorpusSuitesAreValidCaseFiles) {
  for (const char* suite : {"torchvision.json", "torchvision_twins.json"}) {
    const auto doc = json::parse(testing::read_text(testing::source_path(std::string("tests/realworld/") + suite)));
    EXPECT_EQ(testing::schema_errors(doc, "cases/schema/case.schema.json"), std::vector<std::string>{}) << suite;
  }
}

TEST_F(RealWorld, TorchvisionTransformsHaveNoErrorFindingsOnAnyDevice) {
  const auto report = run("torchvision.json", 0);
  std::set<std::string> cases;
  int compared_on_vdev = 0;
  for (const auto& result : report["results"]) {
    const auto id = result["id"].get<std::string>();
    const auto device = result["device"].get<std::string>();
    cases.insert(result["case"].get<std::string>());
    EXPECT_NE(result["status"], "fail") << id << ": " << result["message"];
    EXPECT_NE(result["status"], "error") << id << ": " << result["message"];
    // A skip only where meta lacks a kernel.
    if (result["status"] == "skip") {
      EXPECT_EQ(device, "meta") << id;
      EXPECT_EQ(check(result, "run")["message"].get<std::string>().rfind("unsupported on meta", 0), 0u) << id;
    }
    for (const auto& c : result["checks"]) {
      for (const auto& f : c.value("findings", json::array())) {
        EXPECT_NE(f["severity"], "error") << id << ": " << f.dump();
        EXPECT_FALSE(f["message"].get<std::string>().empty()) << id;
        // Sources name torchvision's line, never torch's own files.
        const auto source = f.value("source", "");
        EXPECT_EQ(source.find("/torch/"), std::string::npos) << id << ": " << f.dump();
      }
    }
    const auto& parity = check(result, "parity");
    if (device.rfind("vdev", 0) == 0 && parity.value("status", "") == "pass") ++compared_on_vdev;
  }
  EXPECT_GE(cases.size(), 15u);
  // Random transforms draw on the host in forward: replayed per device, their
  // results compare exactly. Only AugMix draws on the device itself.
  if (vdev::compiled()) {
    EXPECT_GE(compared_on_vdev, 80) << "parity must really compare, not skip";
  }
}

TEST_F(RealWorld, RandomTransformsCompareOnTheVirtualDeviceExactlyOrAsCudaComputes) {
  if (!vdev_rows()) return;
  const auto report = run("torchvision.json", 0);
  int moved = 0;
  for (const auto& result : report["results"]) {
    const auto name = result["case"].get<std::string>();
    if (result["device"] != "vdev:1") continue;
    const auto& parity = check(result, "parity");
    if (name == "augmix") {
      // Its Dirichlet weights are drawn with device=batch.device.
      EXPECT_EQ(parity["status"], "skip") << result["id"];
      EXPECT_NE(parity["message"].get<std::string>().find("not comparable: the subject draws random numbers on vdev:1 "
                                                           "(aten::_sample_dirichlet"),
                std::string::npos)
          << parity.dump();
      continue;
    }
    EXPECT_EQ(parity["status"], "pass") << result["id"] << ": " << parity.dump();
    if (result.contains("cuda_arithmetic")) {
      // torchvision's resampling (interpolate, grid_sample) computes as CUDA does on vdev:
      // within the case's tolerance, and only there.
      for (const auto& [model, calls] : result["cuda_arithmetic"].items()) {
        EXPECT_TRUE(model == "cuda_interpolate" || model == "cuda_grid_sample" || model == "sgemm_fma")
            << result["id"] << ": " << model;
      }
      ++moved;
      continue;
    }
    EXPECT_EQ(parity["message"], "identical to the reference") << result["id"];
  }
  // resize, random_resized_crop, random_affine, random_rotation, random_perspective, sequential: float32 at least.
  EXPECT_GE(moved, 6);
}

// The asynchronous vdev (docs/vdev-async.md, the default) on the same real
// code, with a sweep of two interleavings (the second lazy) and eager pinned
// release: queued work, and still no race and no error finding.
TEST_F(RealWorld, TorchvisionTransformsPassOnTheAsynchronousVirtualDevice) {
  if (!vdev_rows()) return;
  const auto report = run("torchvision.json", 0, "--interleavings 2 --vdev-pinned-release eager");
  EXPECT_EQ(report["run"]["vdev_async"], (json{{"interleavings", 2}, {"pinned_release", "eager"}}));
  int rows = 0;
  for (const auto& result : report["results"]) {
    if (result["device"].get<std::string>().rfind("vdev", 0) != 0) continue;
    ++rows;
    const auto id = result["id"].get<std::string>();
    EXPECT_TRUE(result.contains("interleaving_seed")) << id;
    EXPECT_NE(result["status"], "fail") << id << ": " << result["message"];
    EXPECT_NE(result["status"], "error") << id << ": " << result["message"];
    for (const auto& c : result["checks"]) {
      for (const auto& f : c.value("findings", json::array())) {
        EXPECT_NE(f["kind"], "unsynchronized_access") << id << ": " << f.dump();
        EXPECT_NE(f["severity"], "error") << id << ": " << f.dump();
      }
    }
  }
  EXPECT_GE(rows, 80);
}

// The line of tools/make_realworld_corpus.py that holds `marker`.
std::string corpus_line(const std::string& marker) {
  std::ifstream in(testing::source_path("tools/make_realworld_corpus.py"));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(marker) != std::string::npos) return "tools/make_realworld_corpus.py:" + std::to_string(n);
  }
  ADD_FAILURE() << "no line with " << marker;
  return "";
}

TEST_F(RealWorld, TorchvisionStyleTwinsAreCaughtWithTheirKinds) {
  const auto report = run("torchvision_twins.json", 1);
  // case -> device -> error kinds
  std::map<std::string, std::map<std::string, std::set<std::string>>> errors;
  std::map<std::string, std::map<std::string, std::string>> status;
  std::map<std::string, std::string> sources;  // kind -> source, of the faults
  for (const auto& result : report["results"]) {
    const auto name = result["case"].get<std::string>();
    const auto device = result["device"].get<std::string>();
    status[name][device] = result["status"];
    for (const auto& c : result["checks"]) {
      for (const auto& f : c.value("findings", json::array())) {
        if (f["severity"] != "error") continue;
        errors[name][device].insert(f["kind"].get<std::string>());
        if (f.contains("source")) sources[name + "/" + f["kind"].get<std::string>()] = f["source"];
      }
    }
  }
  const std::map<std::string, std::string> clean_of = {
      {"channel_gain_unregistered", "channel_gain"},
      {"vignette_deviceless", "vignette"},
      {"batch_brightness_unmoved", "batch_brightness"},
      {"grid_shift_device_type", "grid_shift"}};
  for (const auto& [fault, clean] : clean_of) {
    for (const auto& device : devices()) {
      EXPECT_EQ(status[clean][device], "pass") << clean << " on " << device;
      EXPECT_TRUE(errors[clean][device].empty()) << clean << " on " << device;
    }
  }
  // A plain attribute read only on the host is host work.
  for (const auto& device : devices()) {
    EXPECT_EQ(status["weighted_brightness"][device], "pass") << device;
    EXPECT_TRUE(errors["weighted_brightness"][device].empty()) << device;
  }
  // State not registered, where it meets the image: on every device, the cpu row included.
  for (const auto& device : devices()) {
    EXPECT_EQ(errors["channel_gain_unregistered"][device].count("unregistered_tensor_state"), 1u) << device;
    EXPECT_EQ(errors["channel_gain_unregistered"][device].count("foreign_device_input"), 1u) << device;
    // A device-less factory meeting input data.
    EXPECT_EQ(errors["vignette_deviceless"][device].count("implicit_device_factory"), 1u) << device;
    // Factors of shape (B, 1, 1, 1) made on the CPU (the code says so) and never moved.
    EXPECT_EQ(errors["batch_brightness_unmoved"][device].count("foreign_device_input"), 1u) << device;
    EXPECT_EQ(errors["batch_brightness_unmoved"][device].count("foreign_device_target"), 1u) << device;
  }
  // Inside an nn.Sequential, too, the findings name the twin's line: frames
  // in torch's own files (nn/modules/container.py) are skipped.
  for (const auto& device : devices()) {
    EXPECT_EQ(errors["sequential_unmoved"][device].count("foreign_device_input"), 1u) << device;
  }
  EXPECT_EQ(sources["sequential_unmoved/foreign_device_input"], corpus_line("# never moved to the image's device"));
  // Each names the line of the fault.
  EXPECT_EQ(sources["vignette_deviceless/implicit_device_factory"], corpus_line("# no device: lands on the CPU"));
  EXPECT_EQ(sources["batch_brightness_unmoved/foreign_device_input"], corpus_line("# never moved to the image's device"));
  // The device type without its index: only where the target has an index.
  EXPECT_EQ(status["grid_shift_device_type"]["cpu"], "pass");
  EXPECT_EQ(status["grid_shift_device_type"]["meta"], "pass");
  if (!vdev_rows()) return;
  // Each index runs with the other current (Note [Current device]): both fail.
  for (const char* device : {"vdev:0", "vdev:1"}) {
    EXPECT_EQ(errors["grid_shift_device_type"][device].count("device_without_index"), 1u) << device;
    EXPECT_EQ(errors["grid_shift_device_type"][device].count("device_mismatch_error"), 1u) << device;
  }
  EXPECT_EQ(sources["grid_shift_device_type/device_without_index"],
            corpus_line("device=torch.device(img.device.type)"));
}

}  // namespace
}  // namespace devparity
