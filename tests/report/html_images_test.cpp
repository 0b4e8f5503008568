// The HTML page's images (reference, device output, |diff| heatmap) are drawn
// from the .npy artifacts without LibTorch (Note [Report commands without
// LibTorch]). Their pixels must be those of the tensor formulas the page
// drew them with before: those formulas are the oracle here.

#include "harness/base/npy.h"
#include "harness/base/png_codec.h"
#include "harness/report/html.h"
#include "harness/report/report_file.h"
#include "tests/support/temp_dir.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

namespace devparity {
namespace {

at::Tensor tensor_display_image(at::Tensor x) {
  if (x.dim() == 4) x = x[0];
  if (x.size(0) != 3 && x.size(0) != 1) x = x.narrow(0, 0, 1);
  if (x.scalar_type() == at::kByte) return x.contiguous();
  return (x.to(at::kDouble).nan_to_num(0.0).clamp(0.0, 1.0) * 255.0).round().to(at::kByte).contiguous();
}

at::Tensor tensor_heatmap(at::Tensor diff, double* max_out, int64_t* special_out) {
  if (diff.dim() == 4) diff = diff[0];
  const auto all = diff.to(at::kDouble);
  const auto special = all.isfinite().logical_not().any(0);
  *special_out = special.sum().item<int64_t>();
  auto d = at::where(all.isfinite(), all, at::zeros_like(all)).amax(0);
  const double max = d.max().item<double>();
  *max_out = max;
  const auto t = max > 0 ? d / max : at::zeros_like(d);
  auto r = (t * 3.0).clamp(0.0, 1.0), g = (t * 3.0 - 1.0).clamp(0.0, 1.0), b = (t * 3.0 - 2.0).clamp(0.0, 1.0);
  r = at::where(special, at::ones_like(r), r);
  g = at::where(special, at::zeros_like(g), g);
  b = at::where(special, at::ones_like(b), b);
  return (at::stack({r, g, b}) * 255.0).round().to(at::kByte).contiguous();
}

std::string unbase64(const std::string& text) {
  static const std::string table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    bits = (bits << 6) | static_cast<uint32_t>(table.find(c));
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

// The page's images in order, as CHW uint8 tensors.
std::vector<at::Tensor> page_images(const std::string& page) {
  std::vector<at::Tensor> images;
  const std::regex png("data:image/png;base64,([A-Za-z0-9+/=]+)");
  for (std::sregex_iterator it(page.begin(), page.end(), png), end; it != end; ++it) {
    auto p = decode_png(unbase64((*it)[1].str()), "page");
    const auto hwc = at::from_blob(p.samples.data(), {p.height, p.width, p.channels}, at::kByte);
    images.push_back(hwc.permute({2, 0, 1}).contiguous().clone());
  }
  return images;
}

TEST(HtmlImages, PixelsFollowTheTensorFormulas) {
  testing::TempDir dir;
  at::manual_seed(5);
  const auto reference = at::randint(0, 256, {1, 3, 6, 5}, at::kByte);
  // float16 output beyond [0, 1] both ways, with NaN and infinities.
  auto output = (at::rand({1, 3, 6, 5}) * 1.6 - 0.3).to(at::kHalf);
  output[0][0][0][0] = NAN;
  output[0][1][2][3] = INFINITY;
  output[0][2][5][4] = -INFINITY;
  auto diff = (at::rand({1, 3, 6, 5}) * 0.02).to(at::kFloat);
  diff[0][1][3][1] = NAN;
  diff[0][0][4][2] = INFINITY;
  write_npy(dir.file("ref.npy"), reference);
  write_npy(dir.file("out.npy"), output);
  write_npy(dir.file("diff.npy"), diff);

  auto report = load_report(std::string(DEVPARITY_SOURCE_DIR) + "/tests/golden/report.json");
  bool placed = false;
  for (auto& r : report["results"]) {
    if (r["status"] != "fail" || placed) continue;
    auto& failing = *std::find_if(r["checks"].begin(), r["checks"].end(), [](const auto& c) { return c["status"] == "fail"; });
    failing["artifacts"] = {{{"kind", "reference"}, {"path", "ref.npy"}},
                                   {{"kind", "output"}, {"path", "out.npy"}},
                                   {{"kind", "abs_diff"}, {"path", "diff.npy"}}};
    placed = true;
  }
  ASSERT_TRUE(placed) << "the golden report has a failing result";
  const auto page = html_report(report, {dir.path(), 200});
  const auto images = page_images(page);
  ASSERT_EQ(images.size(), 3u) << "reference, output, heatmap";
  EXPECT_TRUE(at::equal(images[0], tensor_display_image(reference)));
  EXPECT_TRUE(at::equal(images[1], tensor_display_image(output)));
  double max = 0;
  int64_t special = 0;
  EXPECT_TRUE(at::equal(images[2], tensor_heatmap(diff, &max, &special)));
  EXPECT_EQ(special, 2);
  EXPECT_NE(page.find(fmt::format("|diff| (black 0, white {:g}; magenta: NaN or Inf against a number, 2 pixel(s))", max)),
            std::string::npos);
}

}  // namespace
}  // namespace devparity
