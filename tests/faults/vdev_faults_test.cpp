// cuda:N-class seeded faults, caught on vdev:1 without a GPU; clean twins pass
// everywhere, and the reference transforms have no findings on vdev:0/vdev:1.

#include "harness/base/json_source.h"
#include "harness/vdev/vdev.h"
#include "tests/support/run_suite.h"
#include "tests/support/schema.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace devparity {
namespace {

using nlohmann::json;
using testing::EventRecorder;

const char* const kDevices = "cpu,vdev:0,vdev:1,meta";

class VdevFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
  }

  static EventRecorder run_case(const std::string& name) {
    const auto suite = load_json_file(testing::source_path("tests/faults/vdev_faults.json")).value;
    json one = {{"cases", json::array()}};
    for (const auto& c : suite["cases"]) {
      if (c["name"] == name) one["cases"].push_back(c);
    }
    return testing::run_suite(one, kDevices);
  }

  // By value: see placement() in placement_faults_test.cpp.
  static const TrialResult& on(const EventRecorder& r, std::string_view device) {
    for (const auto& result : r.results) {
      if (result.device == device) return result;
    }
    throw std::out_of_range(std::string(device));
  }

  static json finding(const TrialResult& r, const std::string& kind) {
    for (const auto& f : EventRecorder::check(r, "placement").findings) {
      if (f["kind"] == kind) return f;
    }
    ADD_FAILURE() << "no " << kind << " in " << r.id;
    return json::object();
  }

  // Caught on vdev:1 with a mismatch naming `op` and both devices.
  static void expect_caught(const EventRecorder& r, const std::string& op, const std::string& devices) {
    const auto& v1 = on(r, "vdev:1");
    EXPECT_EQ(v1.status, Status::kFail) << v1.message;
    EXPECT_EQ(EventRecorder::check(v1, "placement").status, Status::kFail);
    const auto mismatch = finding(v1, "device_mismatch_error");
    EXPECT_EQ(mismatch["op"], op);
    EXPECT_EQ(mismatch["device"], devices);
    for (const char* device : {"cpu", "meta"}) {
      EXPECT_EQ(EventRecorder::check(on(r, device), "placement").status, Status::kPass) << device;
    }
  }

  static void expect_clean(const std::string& name) {
    for (const auto& result : run_case(name).results) {
      EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
      EXPECT_TRUE(EventRecorder::check(result, "placement").findings.empty()) << result.id;
    }
  }
};

TEST_F(VdevFaultsTest, TableOnTheCurrentDeviceIsCaughtOnBothIndices) {
  const auto r = run_case("jitter_current_device");
  expect_caught(r, "aten::index.Tensor", "vdev:1 and vdev:0");
  const auto unindexed = finding(on(r, "vdev:1"), "device_without_index");
  EXPECT_EQ(unindexed["op"], "aten::arange");
  EXPECT_EQ(unindexed["scopes"], json({"jitter"}));
  // vdev:0 runs with vdev:1 current (Note [Current device]): the table lands there, so the
  // bug is no longer latent on index 0 either.
  const auto& v0 = on(r, "vdev:0");
  EXPECT_EQ(v0.status, Status::kFail) << v0.message;
  EXPECT_EQ(finding(v0, "device_without_index")["op"], "aten::arange");
  EXPECT_EQ(finding(v0, "device_mismatch_error")["device"], "vdev:0 and vdev:1");
  expect_clean("jitter_current_device_clean");
}

TEST_F(VdevFaultsTest, DeviceTypeWithoutIndexIsCaughtOnVdev1) {
  const auto r = run_case("offset_device_type");
  expect_caught(r, "aten::add.Tensor", "vdev:1 and vdev:0");
  EXPECT_EQ(finding(on(r, "vdev:1"), "device_without_index")["op"], "aten::to.dtype_layout");
  expect_clean("offset_device_type_clean");
}

TEST_F(VdevFaultsTest, UnregisteredTableIsCaughtOnVdev1) {
  const auto r = run_case("jitter_plain_table");
  const auto& v1 = on(r, "vdev:1");
  EXPECT_EQ(v1.status, Status::kFail);
  const auto mismatch = finding(v1, "device_mismatch_error");
  EXPECT_EQ(mismatch["op"], "aten::index.Tensor");
  EXPECT_EQ(mismatch["device"], "vdev:1 and cpu");
  EXPECT_EQ(finding(v1, "foreign_device_input")["device"], "cpu");
  expect_clean("jitter_plain_table_clean");
}

TEST_F(VdevFaultsTest, StateLeftOnTheCurrentIndexAfterAMoveToTheDeviceType) {
  const auto r = run_case("state_device_type_move");
  expect_caught(r, "aten::mul.Tensor", "vdev:1 and vdev:0");
  const auto off = finding(on(r, "vdev:1"), "state_off_device");
  EXPECT_EQ(off["device"], "vdev:0");
  EXPECT_NE(off["message"].get<std::string>().find("after the move to vdev:1"), std::string::npos)
      << off.dump();
  // With vdev:1 current, the move to the device type leaves vdev:0's state there too.
  EXPECT_EQ(finding(on(r, "vdev:0"), "state_off_device")["device"], "vdev:1");
  expect_clean("state_device_type_move_clean");
}

TEST_F(VdevFaultsTest, ReferenceTransformsAreExactAndCleanOnBothIndices) {
  const auto suite = load_json_file(testing::source_path("cases/default.json")).value;
  const auto r = testing::run_suite(suite, "cpu,vdev:0,vdev:1");
  int vdev_rows = 0, moved_rows = 0;
  for (const auto& result : r.results) {
    if (result.device.rfind("vdev", 0) != 0) continue;
    ++vdev_rows;
    EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
    for (const auto& f : EventRecorder::check(result, "placement").findings) {
      EXPECT_EQ(f["severity"], "note") << result.id << ": " << f.dump();  // declared hand-overs only
    }
    if (result.subject == "jpeg_encode") {
      // JPEG bytes: the jpeg check compares them, and they must be identical.
      EXPECT_EQ(EventRecorder::check(result, "jpeg").stats["identical_to_reference"],
                EventRecorder::check(result, "jpeg").stats["images"])
          << result.id;
      continue;
    }
    const auto& parity = EventRecorder::check(result, "parity");
    if (result.cuda_arithmetic.is_object()) {
      // A model of CUDA's arithmetic moved values (LibTorch's interpolate):
      // judged at the case's tolerance, as a GPU is, and passed above.
      ++moved_rows;
      continue;
    }
    if (result.reference_subject == result.subject && result.reference_params.empty() && result.round_trip.empty()) {
      // Otherwise vdev runs the CPU's kernels: every element equal, even where a case
      // allows real accelerators a tie's rounding; unless the reference was
      // computed in float32 for want of a half kernel on this CPU (Note [Half
      // precision reference]): then the case's tolerance, which it passes.
      EXPECT_EQ(parity.stats["differing"], 0) << result.id << " must be exact";
      if (parity.stats["tolerance"]["default"].get<bool>()) {
        EXPECT_EQ(parity.stats["tolerance"]["atol"], 0.0) << result.id;
      }
    }
  }
  EXPECT_GT(vdev_rows, 100);
  EXPECT_LT(moved_rows, vdev_rows / 4);  // the catalog's own transforms compute in ops vdev does not model
}

TEST_F(VdevFaultsTest, TheSuiteIsSchemaValid) {
  EXPECT_EQ(testing::schema_errors(
                load_json_file(testing::source_path("tests/faults/vdev_faults.json")).value,
                "cases/schema/case.schema.json"),
            std::vector<std::string>{});
}

}  // namespace
}  // namespace devparity
