// The diff as a pull-request comment (issue 41): moved statistics summarised by transform and
// device, the most severe first, and every table kept to a readable length.

#include "harness/report/diff.h"

#include <gtest/gtest.h>

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
