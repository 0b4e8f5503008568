#include "harness/base/json_reader.h"

#include "harness/base/error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

using nlohmann::json;

template <typename Fn>
FieldError field_error(Fn&& fn) {
  try {
    fn();
  } catch (const FieldError& e) {
    return e;
  }
  ADD_FAILURE() << "no FieldError";
  return FieldError("", "");
}

TEST(JsonReaderTest, TypedAccessWithDefaults) {
  const json v = {{"n", 3}, {"f", 2.5}, {"b", true}, {"s", "bilinear"}, {"l", {1, 2}}, {"w", 4.0}};
  ObjectReader r(v, "/p");
  EXPECT_EQ(r.integer("n", std::nullopt, 0, 10), 3);
  EXPECT_EQ(r.integer("w", std::nullopt), 4);  // 4.0 is an integer
  EXPECT_EQ(r.number("f", std::nullopt), 2.5);
  EXPECT_TRUE(r.boolean("b", false));
  EXPECT_EQ(r.string("s", std::nullopt, {"nearest", "bilinear"}), "bilinear");
  EXPECT_EQ(r.integers("l", 2, 0, 5), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(r.integer("absent", 7), 7);
  r.finish();
}

TEST(JsonReaderTest, ErrorsNameTheFieldAndWhatWasExpected) {
  const json v = {{"n", 30}, {"s", "cubic"}, {"l", {1, "x"}}, {"b", 1}, {"i", 2.5}};
  auto e = field_error([&] { ObjectReader(v, "/p").integer("n", std::nullopt, 0, 10); });
  EXPECT_EQ(e.pointer(), "/p/n");
  EXPECT_NE(std::string(e.what()).find("in [0, 10]"), std::string::npos) << e.what();
  e = field_error([&] { ObjectReader(v, "/p").string("s", std::nullopt, {"nearest", "bilinear"}); });
  EXPECT_EQ(e.pointer(), "/p/s");
  EXPECT_NE(std::string(e.what()).find("\"nearest\", \"bilinear\""), std::string::npos) << e.what();
  e = field_error([&] { ObjectReader(v, "/p").integers("l", 2, 0, 9); });
  EXPECT_EQ(e.pointer(), "/p/l/1");
  e = field_error([&] { ObjectReader(v, "/p").boolean("b", false); });
  EXPECT_EQ(e.pointer(), "/p/b");
  e = field_error([&] { ObjectReader(v, "/p").integer("i", 0); });
  EXPECT_NE(std::string(e.what()).find("2.5"), std::string::npos) << e.what();
  e = field_error([&] { ObjectReader(v, "/p").integers("missing", 2, 0, 9); });
  EXPECT_EQ(e.pointer(), "/p");
  EXPECT_NE(std::string(e.what()).find("missing required field 'missing'"), std::string::npos);
}

TEST(JsonReaderTest, FinishRejectsUnknownFieldsAtTheirKey) {
  const json v = {{"size", {1, 2}}, {"sise", 3}};
  ObjectReader r(v);
  r.integers("size", 2, 1, 9);
  const auto e = field_error([&] { r.finish(); });
  EXPECT_EQ(e.pointer(), "/sise");
  EXPECT_TRUE(e.at_key());
  EXPECT_NE(std::string(e.what()).find("known: size"), std::string::npos) << e.what();
}

TEST(JsonReaderTest, NonObjectIsRejectedNullIsEmpty) {
  const json array = json::array(), null;
  EXPECT_THROW(ObjectReader{array}, FieldError);
  ObjectReader empty(null);
  EXPECT_FALSE(empty.has("x"));
  empty.finish();
}

}  // namespace
}  // namespace devparity
