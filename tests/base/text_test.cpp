#include "harness/base/text.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(TextTest, SplitTrimsAndDropsEmptyPieces) {
  EXPECT_EQ(split(" a, b ,,c ", ','), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split("", ',').empty());
}

TEST(TextTest, GlobMatch) {
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("a*c", "abbbc"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "ac"));
  EXPECT_TRUE(glob_match("*/meta/*", "case/resize/uint8/meta/noise-1x3x17x11"));
  EXPECT_FALSE(glob_match("*/meta", "case/meta/x"));
  EXPECT_TRUE(glob_match("**a*", "xxa"));
}

TEST(TextTest, FilterHasPositiveAndNegativeGlobs) {
  EXPECT_TRUE(filter_match("", "anything"));
  EXPECT_TRUE(filter_match("a*:b*", "bee"));
  EXPECT_FALSE(filter_match("a*:b*", "cat"));
  EXPECT_FALSE(filter_match("*-*/meta/*", "c/s/float32/meta/i"));
  EXPECT_TRUE(filter_match("*-*/meta/*", "c/s/float32/cpu/i"));
  EXPECT_TRUE(filter_match("-*meta*", "c/cpu"));  // only negatives: everything else
  EXPECT_FALSE(filter_match("-*meta*", "c/meta"));
}

TEST(TextTest, ShapesAndIdentifiers) {
  EXPECT_EQ(join_shape({2, 3, 17, 11}), "2x3x17x11");
  EXPECT_EQ(join_shape({}), "");
  EXPECT_TRUE(is_identifier("resize_2"));
  EXPECT_FALSE(is_identifier("re-size"));
  EXPECT_FALSE(is_identifier(""));
}

}  // namespace
}  // namespace devparity
