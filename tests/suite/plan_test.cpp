#include "harness/suite/plan.h"

#include "harness/base/error.h"
#include "harness/builtins.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

namespace devparity {
namespace {

using nlohmann::json;

class TrialTest : public ::testing::Test {
 protected:
  void SetUp() override { register_builtins(); }

  Suite load(const json& suite, const std::string& name = "suite.json") {
    return load_suite(dir_.write(name, suite.dump()), inventory_);
  }

  PlanOptions options(const std::string& devices) {
    PlanOptions o;
    o.devices = parse_device_list(devices, inventory_);
    return o;
  }

  testing::TempDir dir_;
  DeviceInventory inventory_;
};

const json kSuite = {
    {"cases",
     {{{"name", "r"},
       {"subject", "resize"},
       {"params", {{"size", {5, 6}}}},
       {"grid", {{"interpolation", {"bilinear", "nearest"}}}},
       {"inputs", {{{"pattern", "ramp"}, {"shape", {1, 3, 8, 8}}}, {{"shape", {2, 1, 4, 4}}}}},
       {"dtypes", {"uint8", "float32"}}}}}};

TEST_F(TrialTest, ExpandsCaseVariantInputDtypeDevice) {
  const std::vector<Suite> suites = {load(kSuite)};
  const auto plan = make_plan(suites, options("auto"), inventory_);
  // 2 variants x 2 inputs x 2 dtypes groups, 6 devices each
  // (cpu, cuda:0, cuda:N, vdev:0, vdev:1, meta).
  EXPECT_EQ(plan.groups.size(), 8u);
  EXPECT_EQ(plan.trial_count(), 48);
  std::set<std::string> ids;
  for (const auto& g : plan.groups) {
    EXPECT_EQ(g.reference_device.name, "cpu");
    ASSERT_EQ(g.trials.size(), 6u);
    EXPECT_EQ(g.trials[0].target.name, "cpu");
    EXPECT_EQ(g.trials[4].target.name, "vdev:1");
    EXPECT_EQ(g.trials[5].target.name, "meta");
    for (const auto& t : g.trials) ids.insert(t.id);
  }
  EXPECT_EQ(ids.size(), 48u);
  EXPECT_EQ(plan.groups[0].trials[2].id,
            "r/resize[interpolation=bilinear]/uint8/cuda:N/ramp-1x3x8x8");
}

TEST_F(TrialTest, IdsAndSeedsAreStableAcrossRuns) {
  const std::vector<Suite> a = {load(kSuite, "a.json")};
  const std::vector<Suite> b = {load(kSuite, "b.json")};
  const auto pa = make_plan(a, options("cpu"), inventory_);
  const auto pb = make_plan(b, options("cpu"), inventory_);
  ASSERT_EQ(pa.groups.size(), pb.groups.size());
  for (size_t i = 0; i < pa.groups.size(); ++i) {
    EXPECT_EQ(pa.groups[i].trials[0].id, pb.groups[i].trials[0].id);
    EXPECT_EQ(pa.groups[i].seed, pb.groups[i].seed);
    EXPECT_LT(pa.groups[i].seed, uint64_t{1} << 53);
  }
  // Same input for every variant and dtype of a case; another input, another seed.
  EXPECT_EQ(pa.groups[0].seed, pa.groups[1].seed);  // uint8 and float32 of the same input
  EXPECT_NE(pa.groups[0].seed, pa.groups[2].seed);  // the other input
  auto seeded = options("cpu");
  seeded.seed = 5;
  EXPECT_NE(make_plan(a, seeded, inventory_).groups[0].seed, pa.groups[0].seed);
}

TEST_F(TrialTest, FiltersByIdGlobDtypeAndCaseDevices) {
  const std::vector<Suite> suites = {load(kSuite)};
  auto o = options("auto");
  o.filter = "*nearest*/float32/*-*/meta/*";
  const auto plan = make_plan(suites, o, inventory_);
  EXPECT_EQ(plan.trial_count(), 10);  // 2 inputs x 5 devices
  auto d = options("auto");
  d.dtypes = std::vector<c10::ScalarType>{c10::ScalarType::Float};
  EXPECT_EQ(make_plan(suites, d, inventory_).trial_count(), 24);

  json restricted = kSuite;
  restricted["cases"][0]["devices"] = {"meta", "cuda"};
  const std::vector<Suite> r = {load(restricted)};
  const auto plan_r = make_plan(r, options("auto"), inventory_);
  for (const auto& g : plan_r.groups) {
    ASSERT_EQ(g.trials.size(), 2u);
    EXPECT_EQ(g.trials[0].target.name, "cuda:0");  // matrix order, not the case's
    EXPECT_EQ(g.trials[1].target.name, "meta");
  }
}

TEST_F(TrialTest, DuplicateIdsAcrossSuitesAreUsageErrors) {
  const std::vector<Suite> suites = {load(kSuite, "a.json"), load(kSuite, "b.json")};
  try {
    make_plan(suites, options("cpu"), inventory_);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("a.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("b.json"), std::string::npos) << e.what();
  }
}

TEST_F(TrialTest, TrialIdFormat) {
  EXPECT_EQ(trial_id("c", "s", "", c10::ScalarType::Float, "cpu", "noise-1x3x17x11"),
            "c/s/float32/cpu/noise-1x3x17x11");
  EXPECT_EQ(trial_id("c", "s", "k=v", c10::ScalarType::Byte, "cuda:N", "i"), "c/s[k=v]/uint8/cuda:N/i");
}

}  // namespace
}  // namespace devparity
