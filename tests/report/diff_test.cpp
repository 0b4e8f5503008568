// The diff as a pull-request comment (issue 41): moved statistics summarised by transform and
// device, the most severe first, and every table kept to a readable length; and as a page, its
// matrix coloured by change.

#include "harness/report/diff.h"
#include "harness/report/diff_html.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace devparity {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportDiffTest, MovedStatisticsAreSummarisedByTransformAndDeviceMostSevereFirst) {
  ReportDiff d;
  d.moved = {{"a/resize/float32/cuda:0/x", "parity", "max_abs", 1e-6, 2e-6, "resize", "cuda:0"},
             {"b/resize/float32/cuda:0/y", "parity", "max_abs", 1e-6, 8e-6, "resize", "cuda:0"},
             {"c/blur/float32/cuda:0/x", "parity", "psnr_db", 90.0, 50.0, "blur", "cuda:0"},
             {"d/blur/float32/vdev:1/x", "parity", "max_abs", 0.1, std::numeric_limits<double>::quiet_NaN(), "blur",
              "vdev:1"}};
  EXPECT_TRUE(std::isinf(d.moved[3].severity()));
  EXPECT_NEAR(d.moved[2].severity(), 100.0, 1e-9) << "a 40 dB drop is a hundredfold amplitude";
  const auto md = d.to_markdown();
  const auto nan_row = md.find("| blur | vdev:1 | 1 | parity.max_abs x inf |");
  const auto psnr_row = md.find("| blur | cuda:0 | 1 | parity.psnr_db x100 |");
  const auto resize_row = md.find("| resize | cuda:0 | 2 | parity.max_abs x8 | 1e-06 | 8e-06 | `b/resize/float32/cuda:0/y` |");
  ASSERT_NE(nan_row, std::string::npos) << md;
  ASSERT_NE(psnr_row, std::string::npos) << md;
  ASSERT_NE(resize_row, std::string::npos) << md;
  EXPECT_LT(nan_row, psnr_row);
  EXPECT_LT(psnr_row, resize_row);
}

TEST(ReportDiffTest, LongTablesAreCutWithACount) {
  ReportDiff d;
  for (int i = 0; i < 120; ++i) {
    d.new_failures.push_back({"c/t/float32/cpu/x" + std::to_string(i), "pass", "fail", "parity", "why"});
  }
  const auto md = d.to_markdown();
  EXPECT_EQ(count(md, "| `c/t/float32/cpu/x"), 50u);
  EXPECT_NE(md.find("and 70 more (`devparity diff --format json` lists all)"), std::string::npos) << md;
  EXPECT_EQ(count(d.to_text(), "c/t/float32/cpu/x"), 120u) << "the text form keeps every row";
}

}  // namespace
}  // namespace devparity

namespace devparity {
namespace {

nlohmann::json row(const std::string& c, const std::string& device, const std::string& status, double max_abs) {
  return {{"id", c + "/t/float32/" + device + "/x"}, {"case", c}, {"device", device}, {"subject", "t"}, {"dtype", "float32"},
          {"status", status}, {"message", status == "fail" ? "parity: <b>off</b>" : ""},
          {"checks", {{{"name", "parity"}, {"status", status}, {"stats", {{"max_abs", max_abs}}}}}}};
}

TEST(ReportDiffTest, ThePageColoursTheMatrixByChangeAndEscapesEverything) {
  const nlohmann::json before = {{"results", {row("a", "cpu", "pass", 0.0), row("a", "cuda:0", "pass", 1e-6),
                                              row("<script>x</script>", "cuda:0", "fail", 1.0),
                                              row("b", "cuda:0", "pass", 1e-6)}}};
  const nlohmann::json after = {{"results", {row("a", "cpu", "pass", 0.0), row("a", "cuda:0", "fail", 0.5),
                                             row("<script>x</script>", "cuda:0", "pass", 0.0),
                                             row("b", "cuda:0", "pass", 1e-3)}}};
  auto d = diff_reports(before, after);
  d.old_path = "old.json";
  d.new_path = "new.json";
  const auto page = diff_html(d);
  EXPECT_NE(page.find("<h1>devparity diff: regressions</h1>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"m new\" title=\"a on cuda:0: 1 new failure\">1/1</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td class=\"m same\" title=\"a on cpu: 1 unchanged\">1</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td class=\"m moved\" title=\"b on cuda:0: 1 statistic moved\">1/1</td>"), std::string::npos)
      << page;
  EXPECT_NE(page.find("<td class=\"m fixed\""), std::string::npos) << page;
  EXPECT_EQ(page.find("<script>"), std::string::npos) << "a case name is text, never markup";
  EXPECT_EQ(page.find("<b>off</b>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;x&lt;/script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace devparity

namespace devparity {
namespace {

// Issue 56: a case name, an id or a message reaches a PR comment and a terminal as text.
ReportDiff hostile_diff() {
  ReportDiff d;
  d.old_path = "old.json";
  d.new_path = "new`.json";
  d.new_failures = {
      {"c/t/float32/cpu/x`y|z", "pass", "fail", "parity",
       "<img src=x onerror=alert(1)> <!-- hidden ![pixel](http://evil.example/p.png) [link](http://evil.example) "
       "@here \x1b[32mPASSED\x1b[0m"},
      {"c/t/float32/cpu/clean", "pass", "fail", "parity", "parity: max |diff| 0.25"}};
  return d;
}

TEST(ReportDiffTest, AMarkdownCommentShowsHostileTextAsText) {
  const auto md = hostile_diff().to_markdown();
  for (const char* raw : {"<img", "<!--", "@here", "![pixel]", "[link](", "\x1b", "`new`"}) {
    EXPECT_EQ(md.find(raw), std::string::npos) << raw << " reached the comment:\n" << md;
  }
  EXPECT_NE(md.find("&lt;img src=x onerror=alert(1)&gt; &lt;\\!-- hidden \\!\\[pixel\\](http://evil.example/p.png) "
                    "\\[link\\](http://evil.example) &#64;here  \\[32mPASSED \\[0m"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| `c/t/float32/cpu/x'y\\|z` |"), std::string::npos) << md;
  EXPECT_NE(md.find("`old.json` → `new'.json`"), std::string::npos) << md;
  // The twin: ordinary text is the text it was (a pipe escaped for the table, as before).
  EXPECT_NE(md.find("| `c/t/float32/cpu/clean` | pass | fail | parity | parity: max \\|diff\\| 0.25 |"),
            std::string::npos) << md;
}

TEST(ReportDiffTest, TheTextDiffShowsEscapeSequencesAsText) {
  const auto text = hostile_diff().to_text();
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("@here \\x1B[32mPASSED\\x1B[0m"), std::string::npos) << text;
  EXPECT_NE(text.find("parity: max |diff| 0.25"), std::string::npos) << text;  // the twin, as it was
}

}  // namespace
}  // namespace devparity
