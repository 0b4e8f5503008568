#include "harness/report/markup.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(MarkupTest, EscapesTheFiveCharactersAndKeepsText) {
  EXPECT_EQ(escape_markup("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(escape_markup("a & \"b\" 'c'"), "a &amp; &quot;b&quot; &#39;c&#39;");
  EXPECT_EQ(escape_markup("tab\tnewline\n"), "tab\tnewline\n");
  EXPECT_EQ(escape_markup("\xC3\xA9t\xC3\xA9 \xE2\x82\xAC"), "\xC3\xA9t\xC3\xA9 \xE2\x82\xAC");  // été €
}

TEST(MarkupTest, ControlCharactersAndBrokenUtf8BecomeReplacementCharacters) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(escape_markup(std::string("a\0b", 3)), "a" + r + "b");
  EXPECT_EQ(escape_markup("\x1B[31m"), r + "[31m");
  EXPECT_EQ(escape_markup("\xFF"), r);
  EXPECT_EQ(escape_markup("\xC3"), r);                 // truncated sequence
  EXPECT_EQ(escape_markup("\xC0\xAF"), r + r);         // overlong '/'
  EXPECT_EQ(escape_markup("\xED\xA0\x80"), r + r + r); // a surrogate
}

}  // namespace
}  // namespace devparity
