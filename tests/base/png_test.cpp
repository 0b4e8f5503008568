#include "harness/base/png.h"

#include "harness/base/error.h"
#include "tests/support/temp_dir.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(PngTest, RoundTripsGreyAndColour) {
  testing::TempDir dir;
  for (int64_t c : {1, 3}) {
    const auto x = at::randint(0, 256, {c, 7, 11}).to(at::kByte);
    const auto path = dir.file("x" + std::to_string(c) + ".png");
    write_png(path, x);
    const auto y = read_png(path);
    EXPECT_EQ(y.sizes(), x.sizes());
    EXPECT_TRUE(at::equal(y, x));
  }
}

TEST(PngTest, ErrorsNameTheFile) {
  testing::TempDir dir;
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"empty.png", ""}, {"text.png", "not a png at all"}}) {
    const auto path = dir.write(name, text);
    try {
      read_png(path);
      ADD_FAILURE() << name;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(read_png(dir.file("absent.png")), InputError);
  EXPECT_THROW(write_png(dir.file("bad.png"), at::zeros({2, 4, 4}, at::kByte)), std::invalid_argument);
}

}  // namespace
}  // namespace devparity
