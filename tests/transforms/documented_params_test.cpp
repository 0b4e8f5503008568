// What every built-in transform's sample() returns is what it documents
// (TransformInfo::params, shown by `devparity list` and the catalog): the
// same names, no more and no fewer, for every group of the default suite.
// A parameter added to sample() without its doc, or a doc left for a
// parameter sample() no longer writes, fails here naming both.

#include "harness/builtins.h"
#include "harness/device/device.h"
#include "harness/run/group_run.h"
#include "harness/suite/case.h"
#include "harness/suite/plan.h"
#include "tests/support/schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>

namespace devparity {
namespace {

std::set<std::string> documented(const Transform& t) {
  std::set<std::string> out;
  for (const auto& p : t.info().params) out.insert(p.name);
  return out;
}

std::set<std::string> written(const nlohmann::json& params) {
  std::set<std::string> out;
  for (const auto& [key, value] : params.items()) out.insert(key);
  return out;
}

// "" when `params` (what `t`'s sample() wrote) holds exactly the documented names.
std::string difference(const Transform& t, const nlohmann::json& params) {
  const auto docs = documented(t);
  const auto keys = written(params);
  if (keys == docs) return "";
  std::set<std::string> undocumented, unwritten;
  for (const auto& k : keys) {
    if (docs.count(k) == 0) undocumented.insert(k);
  }
  for (const auto& d : docs) {
    if (keys.count(d) == 0) unwritten.insert(d);
  }
  return fmt::format("written, not documented: [{}]; documented, not written: [{}]", fmt::join(undocumented, ", "),
                     fmt::join(unwritten, ", "));
}

// The twins: a transform whose sample() writes a key it does not document,
// and one that documents a key it never writes.
class Writes final : public Transform {
 public:
  Writes(nlohmann::json out, std::vector<std::string> docs) : out_(std::move(out)) {
    info_.name = "writes";
    for (auto& d : docs) info_.params.push_back({std::move(d), "number", "1", "a value"});
  }
  const TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json&, c10::IntArrayRef, at::Generator&) const override { return out_; }
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override { return x; }

 private:
  nlohmann::json out_;
  TransformInfo info_;
};

TEST(DocumentedParams, AnUndocumentedOrUnwrittenKeyIsNamed) {
  EXPECT_EQ(difference(Writes({{"a", 1}}, {"a"}), {{"a", 1}}), "");
  EXPECT_EQ(difference(Writes({{"a", 1}, {"shape", 2}}, {"a"}), {{"a", 1}, {"shape", 2}}),
            "written, not documented: [shape]; documented, not written: []");
  EXPECT_EQ(difference(Writes({{"a", 1}}, {"a", "b"}), {{"a", 1}}),
            "written, not documented: []; documented, not written: [b]");
}

TEST(DocumentedParams, SampleWritesExactlyTheDocumentedNames) {
  register_builtins();
  DeviceInventory inventory;  // the CPU alone
  const std::vector<Suite> suites = {load_suite(testing::source_path("cases/default.json"), inventory)};
  PlanOptions options;
  options.devices = parse_device_list("cpu", inventory);
  const auto plan = make_plan(suites, options, inventory);
  std::map<std::string, std::string> differing;  // subject -> the first group's difference
  std::set<std::string> subjects;
  for (const auto& group : plan.groups) {
    GroupRun run(group, /*trace=*/false);
    ASSERT_TRUE(run.setup_error().empty()) << group.trials.front().id << ": " << run.setup_error();
    const auto& name = group.subject->info().name;
    subjects.insert(name);
    const auto why = difference(*group.subject, run.replay().params);
    if (!why.empty() && differing.count(name) == 0) differing[name] = group.trials.front().id + ": " + why;
  }
  EXPECT_GT(subjects.size(), 40u);
  for (const auto& [name, why] : differing) ADD_FAILURE() << name << ": " << why;
}

}  // namespace
}  // namespace devparity
