// The placement check must catch each seeded fault with the expected finding
// kind and op, on this CPU-only machine (cpu and meta), and pass each clean
// twin with no findings at all.

#include "harness/base/json_source.h"
#include "tests/support/run_suite.h"
#include "tests/support/schema.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

namespace devparity {
namespace {

using nlohmann::json;
using testing::EventRecorder;

// The shipped fault suite, filtered to one case.
EventRecorder run_case(const std::string& name, const std::string& devices = "cpu,meta") {
  const auto suite = load_json_file(testing::source_path("tests/faults/placement_faults.json")).value;
  json one = suite;
  one["cases"] = json::array();
  for (const auto& c : suite["cases"]) {
    if (c["name"] == name) one["cases"].push_back(c);
  }
  return testing::run_suite(one, devices);
}

// By value: a std::string temporary bound to a reference parameter makes GCC
// 14 warn that the returned reference may dangle.
const CheckOutcome& placement(const EventRecorder& r, std::string_view device) {
  for (const auto& result : r.results) {
    if (result.device == device) return EventRecorder::check(result, "placement");
  }
  throw std::out_of_range("no result on " + std::string(device));
}

// The finding of `kind`, which must exist.
json finding(const CheckOutcome& c, const std::string& kind) {
  for (const auto& f : c.findings) {
    if (f["kind"] == kind) return f;
  }
  ADD_FAILURE() << "no " << kind << " finding in " << c.findings.dump(1);
  return json::object();
}

std::set<std::string> kinds(const CheckOutcome& c) {
  std::set<std::string> out;
  for (const auto& f : c.findings) out.insert(f["kind"].get<std::string>());
  return out;
}

void expect_clean(const std::string& name) {
  const auto r = run_case(name);
  ASSERT_EQ(r.results.size(), 2u);
  for (const auto& result : r.results) {
    const auto& p = EventRecorder::check(result, "placement");
    EXPECT_EQ(p.status, Status::kPass) << result.id << ": " << p.message;
    EXPECT_TRUE(p.findings.empty()) << result.id << ": " << p.findings.dump(1);
    EXPECT_EQ(result.status, Status::kPass) << result.id << ": " << result.message;
  }
}

TEST(PlacementFaultsTest, PlainMemberTableIsCaughtOnMetaAtTheIndexingOp) {
  const auto r = run_case("jitter");
  // Note [Recorded storages]: a C++ plain member looks like device data on
  // the cpu row; on meta it is host data on another device.
  EXPECT_EQ(placement(r, "cpu").status, Status::kPass);
  const auto& meta = placement(r, "meta");
  EXPECT_EQ(meta.status, Status::kFail);
  const auto foreign = finding(meta, "foreign_device_input");
  EXPECT_EQ(foreign["op"], "aten::index.Tensor");
  EXPECT_EQ(foreign["device"], "cpu");
  EXPECT_EQ(foreign["shape"], json({5, 2}));
  EXPECT_EQ(foreign["scopes"], json({"jitter", "coefficients"}));
  EXPECT_NE(foreign["message"].get<std::string>().find("plain member"), std::string::npos) << foreign.dump();
  EXPECT_EQ(finding(placement(r, "meta"), "device_mismatch_error")["op"], "aten::index.Tensor");
  expect_clean("jitter_clean");
}

TEST(PlacementFaultsTest, CpuGradientIsCaughtOnEveryDevice) {
  const auto r = run_case("illumination");
  for (const std::string device : {"cpu", "meta"}) {
    const auto& p = placement(r, device);
    EXPECT_EQ(p.status, Status::kFail) << device;
    const auto f = finding(p, "implicit_device_factory");
    EXPECT_EQ(f["op"], "aten::linspace") << device;
    EXPECT_EQ(f["scopes"], json({"illumination"})) << device;
  }
  const auto& meta = placement(r, "meta");
  EXPECT_EQ(finding(meta, "foreign_device_input")["op"], "aten::add.Tensor");
  EXPECT_EQ(finding(meta, "device_mismatch_error")["device"], "meta and cpu");
  expect_clean("illumination_clean");
}

TEST(PlacementFaultsTest, DeepKernelFindingShowsTheScopeChain) {
  const auto r = run_case("kernel");
  for (const std::string device : {"cpu", "meta"}) {
    const auto f = finding(placement(r, device), "implicit_device_factory");
    EXPECT_EQ(f["op"], "aten::arange") << device;
    EXPECT_EQ(f["scopes"], json({"jpeg", "subsample", "blur", "gaussian_kernel"})) << device;
  }
  const auto& message = placement(r, "cpu").message;
  EXPECT_NE(message.find("jpeg > subsample > blur > gaussian_kernel: aten::arange with no device"),
            std::string::npos) << message;
  expect_clean("kernel_clean");
}

TEST(PlacementFaultsTest, ItemIsAHostSyncWarningThatStrictModeFails) {
  const auto r = run_case("item");
  const auto& cpu = placement(r, "cpu");
  EXPECT_EQ(cpu.status, Status::kPass) << "a warning does not fail in warn mode";
  const auto sync = finding(cpu, "host_sync");
  EXPECT_EQ(sync["op"], "aten::item");
  EXPECT_EQ(sync["severity"], "warning");
  EXPECT_EQ(kinds(placement(r, "meta")).count("host_sync"), 1u);

  json strict = load_json_file(testing::source_path("tests/faults/placement_faults.json")).value;
  json one = {{"cases", json::array()}};
  for (auto c : strict["cases"]) {
    if (c["name"] == "item") {
      c["checks"] = {{"placement", {{"mode", "strict"}}}};
      one["cases"].push_back(c);
    }
  }
  const auto s = testing::run_suite(one, "cpu");
  EXPECT_EQ(EventRecorder::check(s.results[0], "placement").status, Status::kFail);
  expect_clean("item_clean");
}

TEST(PlacementFaultsTest, CpuResultIsAWrongDeviceOutputOnMeta) {
  const auto r = run_case("cpu_output");
  EXPECT_EQ(placement(r, "cpu").status, Status::kPass);
  const auto& meta = placement(r, "meta");
  EXPECT_EQ(meta.status, Status::kFail);
  const auto f = finding(meta, "wrong_device_output");
  EXPECT_EQ(f["device"], "cpu");
  EXPECT_EQ(f["shape"], json({1, 3, 17, 11}));
  EXPECT_EQ(finding(meta, "foreign_device_target")["op"], "aten::zeros");
  expect_clean("cpu_output_clean");
}

TEST(PlacementFaultsTest, StateLeftBehindByAPartialMove) {
  const auto r = run_case("state");
  EXPECT_EQ(placement(r, "cpu").status, Status::kPass);
  const auto& meta = placement(r, "meta");
  EXPECT_EQ(meta.status, Status::kFail);
  const auto f = finding(meta, "state_off_device");
  EXPECT_NE(f["message"].get<std::string>().find("'lut'"), std::string::npos) << f.dump();
  EXPECT_EQ(f["device"], "cpu");
  expect_clean("state_clean");
}

TEST(PlacementFaultsTest, ReferenceTransformsHaveNoFindings) {
  const auto suite = load_json_file(testing::source_path("cases/default.json")).value;
  const auto r = testing::run_suite(suite, "cpu,meta");
  ASSERT_FALSE(r.results.empty());
  for (const auto& result : r.results) {
    const auto& p = EventRecorder::check(result, "placement");
    EXPECT_TRUE(p.findings.empty()) << result.id << ": " << p.findings.dump(1);
    EXPECT_NE(p.status, Status::kFail) << result.id;
  }
}

TEST(PlacementFaultsTest, TheFaultSuiteIsSchemaValid) {
  EXPECT_EQ(testing::schema_errors(
                load_json_file(testing::source_path("tests/faults/placement_faults.json")).value,
                "cases/schema/case.schema.json"),
            std::vector<std::string>{});
}

}  // namespace
}  // namespace devparity
