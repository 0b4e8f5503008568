// One group of the plan run in this process (harness/run/group_run.h): the
// input and parameters made once, the reference made on first need and
// kept, each trial's run on its own device.
#include "harness/run/group_run.h"

#include "harness/subject/transform.h"
#include "tests/support/planned.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

using nlohmann::json;

json one_case(json extra = json::object()) {
  json c = {{"name", "g"},
            {"subject", "hflip"},
            {"inputs", {{{"pattern", "noise"}, {"shape", {1, 3, 6, 5}}}}},
            {"dtypes", {"float32"}}};
  c.update(extra);
  return {{"cases", {c}}};
}

TEST(GroupRunTest, TheInputIsMadeOnceOnTheCpuAndTheReferenceIsKept) {
  const auto p = testing::plan_suite(one_case(), "cpu,meta");
  ASSERT_EQ(p.plan.groups.size(), 1u);
  GroupRun group(p.plan.groups[0], /*trace=*/false);
  EXPECT_TRUE(group.setup_error().empty()) << group.setup_error();
  EXPECT_TRUE(group.input().device().is_cpu());
  EXPECT_EQ(group.input().sizes(), (std::vector<int64_t>{1, 3, 6, 5}));
  EXPECT_EQ(group.input().scalar_type(), at::kFloat);
  const Execution* ref = group.reference();
  ASSERT_NE(ref, nullptr);
  ASSERT_TRUE(ref->ran) << ref->error.message;
  EXPECT_TRUE(at::equal(ref->output, group.input().flip(-1)));
  EXPECT_EQ(group.reference(), ref);               // made once
  EXPECT_EQ(group.subject_on_reference(), ref);    // the subject is its own reference
  // A trial on another device runs there; the reference device's trial is the reference.
  const auto& trials = p.plan.groups[0].trials;
  ASSERT_EQ(trials.size(), 2u);
  Execution scratch;
  const auto& on_meta = group.run(trials[1], scratch);
  ASSERT_TRUE(on_meta.ran) << on_meta.error.message;
  EXPECT_TRUE(on_meta.output.is_meta());
  EXPECT_EQ(&group.run(trials[0], scratch), ref);
  const auto row = group.result_for(trials[1]);
  EXPECT_EQ(row.id, trials[1].id);
  EXPECT_EQ(row.device, "meta");
}

TEST(GroupRunTest, ANamedReferenceSubjectRunsApartFromTheSubject) {
  const auto p = testing::plan_suite(one_case({{"reference", {{"subject", "vflip"}}}}), "cpu");
  GroupRun group(p.plan.groups[0], false);
  const Execution* ref = group.reference();
  const Execution* own = group.subject_on_reference();
  ASSERT_NE(ref, nullptr);
  ASSERT_NE(own, nullptr);
  EXPECT_NE(ref, own);
  EXPECT_TRUE(at::equal(ref->output, group.input().flip(-2)));
  EXPECT_TRUE(at::equal(own->output, group.input().flip(-1)));
}

TEST(GroupRunTest, AnInputThatCannotBeMadeIsTheGroupsSetupError) {
  const auto p = testing::plan_suite(one_case({{"inputs", {{{"pattern", "noise"}, {"shape", {1, 3, 6, 5}}}}}}), "cpu");
  auto group_spec = p.plan.groups[0];
  group_spec.input.shape = {1, 3, -6, 5};  // no tensor has a negative size
  GroupRun group(group_spec, false);
  EXPECT_FALSE(group.setup_error().empty());
  EXPECT_EQ(group.reference(), nullptr);
}

}  // namespace
}  // namespace devparity
