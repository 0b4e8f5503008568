// The catalog as users see it: `list --json` and `list --markdown`, the
// docs/transforms.md's generated table, and every transform's default-suite coverage on
// cpu and meta for every dtype it claims.

#include "tests/support/schema.h"
#include "tests/support/cli.h"

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

json list_json() {
  const auto r = run_cli("list --json", DEVPARITY_SOURCE_DIR);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  return json::parse(r.out).at("transforms");
}

// What the catalog promises and the report does not show: for every
// non-native transform and claimed dtype, a passing result on a non-empty
// input on cpu, and on meta when the transform claims meta. One line per gap.
std::vector<std::string> coverage_gaps(const json& transforms, const json& report) {
  std::set<std::string> passed;  // subject/dtype/device
  for (const auto& r : report.at("results")) {
    if (r.at("status") == "pass" && r.at("shape").at(0).get<int64_t>() > 0) {
      passed.insert(r.at("subject").get<std::string>() + "/" + r.at("dtype").get<std::string>() + "/" +
                    r.at("device").get<std::string>());
    }
  }
  std::vector<std::string> gaps;
  for (const auto& t : transforms) {
    if (t.at("family") == "native") continue;
    const auto name = t.at("name").get<std::string>();
    for (const auto& dtype : t.at("dtypes")) {
      std::vector<std::string> devices = {"cpu"};
      if (t.at("meta").get<bool>()) devices.push_back("meta");
      for (const auto& device : devices) {
        const auto key = name + "/" + dtype.get<std::string>() + "/" + device;
        if (passed.count(key) == 0) gaps.push_back(key);
      }
    }
  }
  return gaps;
}

TEST(Catalog, ListJsonDescribesEveryTransform) {
  const auto transforms = list_json();
  int on_meta = 0;
  for (const auto& t : transforms) {
    SCOPED_TRACE(t.dump());
    EXPECT_FALSE(t.at("dtypes").empty());
    EXPECT_TRUE(t.at("differentiable").is_boolean());
    EXPECT_TRUE(t.at("meta").is_boolean());
    on_meta += t.at("meta").get<bool>() && t.at("family") != "native";
  }
  EXPECT_GE(on_meta, 45);
}

TEST(Catalog, EveryTransformPassesOnCpuAndMeta) {
  testing::TempDir dir;
  const auto report_path = dir.file("r.json");
  const auto r = run_cli("run --devices cpu,meta -q --report " + shell_quote(report_path), DEVPARITY_SOURCE_DIR);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto report = testing::read_report_file(report_path);
  const auto transforms = list_json();
  const auto gaps = coverage_gaps(transforms, report);
  EXPECT_TRUE(gaps.empty()) << "no passing default-suite result for " << json(gaps).dump();
  // Zero placement findings for the reference transforms on cpu and meta.
  std::map<std::string, std::string> family;
  for (const auto& t : transforms) family[t.at("name")] = t.at("family");
  for (const auto& result : report.at("results")) {
    if (family[result.at("subject")] == "native") continue;
    for (const auto& check : result.at("checks")) {
      EXPECT_TRUE(check.at("findings").empty()) << result.at("id") << ": " << check.at("findings").dump();
    }
  }
}

// The coverage check's twin: a run that leaves out one transform's cases
// must name it, or the test above could not fail.
TEST(Catalog, CoverageCheckNamesAMissingTransform) {
  testing::TempDir dir;
  const auto report_path = dir.file("r.json");
  const auto r = run_cli("run --devices cpu,meta -q --filter " + shell_quote("invert/*:solarize/*") + " --report " +
                             shell_quote(report_path),
                         DEVPARITY_SOURCE_DIR);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto gaps = coverage_gaps(list_json(), testing::read_report_file(report_path));
  const std::set<std::string> missing(gaps.begin(), gaps.end());
  EXPECT_EQ(missing.count("posterize/uint8/meta"), 1u);
  EXPECT_EQ(missing.count("invert/uint8/cpu"), 0u);
  EXPECT_EQ(missing.count("invert/float64/meta"), 0u);
}

// The table between `marker`:begin and `marker`:end in `page`.
std::string embedded_table(const std::string& page, const std::string& marker) {
  const auto begin = page.find("<!-- " + marker + ":begin");
  const auto end = page.find("<!-- " + marker + ":end -->");
  if (begin == std::string::npos || end == std::string::npos) return "(no " + marker + " markers in the page)";
  const auto first = page.find('\n', begin) + 1;
  return page.substr(first, end - first);
}

std::string catalog_table(const std::string& page) { return embedded_table(page, "catalog"); }

TEST(Catalog, TransformsPageTableIsCurrent) {
  const auto r = run_cli("list --markdown", DEVPARITY_SOURCE_DIR);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto page = testing::read_text(std::string(DEVPARITY_SOURCE_DIR) + "/docs/transforms.md");
  EXPECT_EQ(catalog_table(page), r.out)
      << "docs/transforms.md's catalog table is stale: run tools/update_catalog_table.sh";
  // The comparison's twin: a table with one row changed is told apart.
  auto stale = r.out;
  stale.replace(stale.find("| yes |"), 7, "| no |");
  EXPECT_NE(catalog_table(page), stale);
  EXPECT_EQ(r.out.find("| Transform |"), 0u);
}

}  // namespace
TEST(Catalog, PerturbedNumericsPageTableIsCurrent) {
  const auto r = run_cli("list --markdown=switches", DEVPARITY_SOURCE_DIR);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto page = testing::read_text(std::string(DEVPARITY_SOURCE_DIR) + "/docs/perturbed-numerics.md");
  EXPECT_EQ(embedded_table(page, "switches"), r.out)
      << "docs/perturbed-numerics.md's switch table is stale: run tools/update_catalog_table.sh";
  // A row per registered switch, and the comparison's twin: one switch's row dropped is told apart.
  for (const auto* name : {"round_half_away", "tf32", "reduction_order", "tie_order", "linspace_formula",
                           "cuda_resample"}) {
    EXPECT_NE(r.out.find(std::string("| `") + name + "` |"), std::string::npos) << name;
  }
  auto stale = r.out;
  stale.erase(stale.find("| `tie_order`"), stale.find('\n', stale.find("| `tie_order`")) - stale.find("| `tie_order`") + 1);
  EXPECT_NE(embedded_table(page, "switches"), stale);
  EXPECT_EQ(run_cli("list --markdown=nope", DEVPARITY_SOURCE_DIR).exit_code, 2);
}

}  // namespace devparity
