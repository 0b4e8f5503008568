// The finding-kind rows against what must follow them: the placement check's
// overrides, the case schema and docs/placement.md (a kind added to one and
// not the others fails here).
#include "harness/trace/finding_kinds.h"

#include "harness/checks/registry.h"
#include "harness/builtins.h"
#include "tests/support/schema.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace devparity {
namespace {

std::set<std::string> placement_kinds() {
  std::set<std::string> out;
  for (const auto& k : finding_kinds()) {
    if (std::string(k.check) == "placement") out.insert(k.name);
  }
  return out;
}

std::string read(const std::string& relative) {
  std::ifstream in(testing::source_path(relative));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(FindingKinds, RowsAreUniqueAndFound) {
  std::set<std::string> names;
  for (const auto& k : finding_kinds()) {
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
    EXPECT_EQ(find_finding_kind(k.name), &k);
    EXPECT_TRUE(std::string(k.check) == "placement" || std::string(k.check) == "run") << k.name;
    EXPECT_FALSE(std::string(k.meaning).empty()) << k.name;
  }
  EXPECT_EQ(find_finding_kind("no_such_kind"), nullptr);
  EXPECT_NE(find_finding_kind(finding_kind::kNonFiniteOutput), nullptr);
}

TEST(FindingKinds, TheCaseSchemaTakesASeverityForEveryPlacementKind) {
  const auto schema = nlohmann::json::parse(read("cases/schema/case.schema.json"));
  std::set<std::string> in_schema;
  for (const auto& [kind, _] :
       schema.at(nlohmann::json::json_pointer("/definitions/placement_setting/oneOf/1/properties/severity/properties"))
           .items()) {
    in_schema.insert(kind);
  }
  EXPECT_EQ(in_schema, placement_kinds());
}

TEST(FindingKinds, ThePlacementCheckTakesASeverityForEveryPlacementKindAndNoOther) {
  register_builtins();
  const auto& placement = *CheckRegistry::global().find("placement");
  for (const auto& kind : placement_kinds()) {
    EXPECT_NO_THROW(placement.validate_setting({{"severity", {{kind, "note"}}}})) << kind;
  }
  EXPECT_ANY_THROW(placement.validate_setting({{"severity", {{finding_kind::kNonFiniteOutput, "note"}}}}));
}

TEST(FindingKinds, ThePlacementPageHasARowPerKind) {
  std::istringstream page(read("docs/placement.md"));
  static const std::regex row(R"(^\| `([a-z_]+)` \| (error|warning|note)\b.*)");
  std::set<std::string> documented;
  std::smatch m;
  for (std::string line; std::getline(page, line);) {
    if (!std::regex_match(line, m, row)) continue;
    const auto* kind = find_finding_kind(m[1].str());
    if (kind == nullptr) continue;  // the page's other tables
    documented.insert(m[1].str());
    EXPECT_EQ(m[2].str(), severity_name(kind->usual)) << m[1].str();
  }
  EXPECT_EQ(documented, placement_kinds());
}

}  // namespace
}  // namespace devparity
