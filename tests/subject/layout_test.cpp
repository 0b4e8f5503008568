#include "harness/subject/layout.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

TEST(Layout, EachLayoutKeepsTheValuesAndChangesTheStrides) {
  const auto x = at::arange(2 * 3 * 4 * 5, at::kFloat).reshape({2, 3, 4, 5});
  EXPECT_EQ(input_layouts(), (std::vector<std::string>{"contiguous", "channels_last", "strided"}));
  EXPECT_TRUE(apply_layout(x, "contiguous").is_same(x));
  const auto last = apply_layout(x, "channels_last");
  EXPECT_TRUE(last.is_contiguous(at::MemoryFormat::ChannelsLast));
  EXPECT_FALSE(last.is_contiguous());
  EXPECT_TRUE(at::equal(last, x));
  const auto strided = apply_layout(x, "strided");
  EXPECT_EQ(strided.stride(3), 2);  // every other column of a tensor twice as wide
  EXPECT_FALSE(strided.is_contiguous());
  EXPECT_TRUE(at::equal(strided, x));
}

}  // namespace
}  // namespace devparity
