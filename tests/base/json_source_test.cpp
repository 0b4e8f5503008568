#include "harness/base/json_source.h"

#include "harness/base/error.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(JsonSourceTest, PositionsOfValuesAndKeys) {
  const std::string text =
      "{\n"
      "  \"cases\": [\n"
      "    {\"name\": \"a\",\n"
      "     \"params\": {\"size\": [1, 22]}}\n"
      "  ],\n"
      "  \"we/ird~\": true\n"
      "}\n";
  const JsonSourceMap map(text);
  EXPECT_EQ(map.find("").line, 1);
  EXPECT_EQ(map.find("/cases").line, 2);
  EXPECT_EQ(map.find("/cases").column, 12);
  EXPECT_EQ(map.find("/cases/0/name").line, 3);
  EXPECT_EQ(map.find("/cases/0/name").column, 14);
  EXPECT_EQ(map.find("/cases/0/name", /*key=*/true).column, 6);
  EXPECT_EQ(map.find("/cases/0/params/size/1").line, 4);
  EXPECT_EQ(map.find("/cases/0/params/size/1").column, 29);
  EXPECT_EQ(map.find("/we~1ird~0").line, 6);
  // A pointer that does not exist falls back to its nearest ancestor.
  EXPECT_EQ(map.find("/cases/0/params/missing").line, 4);
  EXPECT_EQ(map.find("/cases/0/params/missing").column, 16);
}

TEST(JsonSourceTest, EscapedKeysAreDecoded) {
  const std::string text = R"({"a\"b": 1, "\u00e9": 2})";
  const JsonSourceMap map(text);
  EXPECT_EQ(map.find("/a\"b").column, 10);
  EXPECT_EQ(map.find("/\xc3\xa9").column, 23);
}

TEST(JsonSourceTest, SyntaxErrorsSayLineAndColumn) {
  try {
    parse_json_text("x.json", "{\n  \"a\": 1,\n  \"b\": tru\n}");
    FAIL();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("x.json:3:", 0), 0u) << what;
    EXPECT_NE(what.find("invalid JSON"), std::string::npos) << what;
  }
}

TEST(JsonSourceTest, MissingFileNamesThePath) {
  try {
    load_json_file("/nonexistent/suite.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/suite.json"), std::string::npos);
  }
}

TEST(JsonSourceTest, DeepNestingIsRefusedBeforeItIsParsed) {
  // 100,000 levels crashed every reader (each recurses); the bound names the place it passes.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    parse_json_text("deep.json", deep);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "deep.json:1:257: JSON nested deeper than 256 levels");
  }
  EXPECT_THROW(parse_json_value("a log line", "{\"a\":" + deep + "}"), InputError);
  // At the bound it reads; brackets inside strings do not count.
  const std::string at_bound = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_NO_THROW(parse_json_text("ok.json", at_bound));
  EXPECT_NO_THROW(parse_json_value("ok", "[\"" + std::string(1000, '[') + "\\\"\"]"));
}

TEST(JsonSourceTest, ARepeatedKeyIsRefusedWithBothPlaces) {
  try {
    parse_json_text("case.json", "{\"cases\": [{\"name\": \"a\",\n  \"name\": \"b\"}]}");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "case.json:2:3: /cases/0/name: the key is given twice in one object (first at 1:13)");
  }
  EXPECT_NO_THROW(parse_json_text("ok.json", "{\"a\": {\"name\": 1}, \"b\": {\"name\": 2}}"));
}

TEST(JsonSourceTest, DocumentErrorFormat) {
  testing::TempDir dir;
  const auto path = dir.write("s.json", "{\"a\": {\"b\": 5}}");
  const auto doc = load_json_file(path);
  EXPECT_EQ(doc.error("/a/b", "too big"), path + ":1:13: /a/b: too big");
  EXPECT_EQ(doc.where("/a/b", true), path + ":1:8");
}

TEST(JsonSourceTest, PointerAppendEscapes) {
  EXPECT_EQ(pointer_append("/x", "a/b~c"), "/x/a~1b~0c");
}

}  // namespace
}  // namespace devparity
