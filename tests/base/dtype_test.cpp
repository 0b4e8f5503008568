#include "harness/base/dtype.h"

#include "harness/base/error.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(DtypeTest, NamesRoundTrip) {
  for (auto t : {c10::ScalarType::Byte, c10::ScalarType::Float, c10::ScalarType::Double,
                 c10::ScalarType::Half, c10::ScalarType::Long}) {
    const auto parsed = parse_dtype(dtype_name(t));
    ASSERT_TRUE(parsed.has_value()) << dtype_name(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(dtype_name(c10::ScalarType::Byte), "uint8");
  EXPECT_EQ(dtype_name(c10::ScalarType::Float), "float32");
}

TEST(DtypeTest, AliasesAndUnknown) {
  EXPECT_EQ(parse_dtype("float"), c10::ScalarType::Float);
  EXPECT_EQ(parse_dtype("byte"), c10::ScalarType::Byte);
  EXPECT_FALSE(parse_dtype("float31").has_value());
}

TEST(DtypeTest, ListParsesAllAndRejectsUnknownNamingIt) {
  const auto all = parse_dtype_list("all");
  EXPECT_EQ(all, known_dtypes());
  const auto two = parse_dtype_list("float32, uint8,float32");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], c10::ScalarType::Float);
  EXPECT_EQ(two[1], c10::ScalarType::Byte);
  try {
    parse_dtype_list("uint8,int4");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'int4'"), std::string::npos);
  }
  // Known to parse_dtype but not generated or compared: rejected for runs.
  EXPECT_THROW(parse_dtype_list("int64"), UsageError);
}

}  // namespace
}  // namespace devparity
