#include "harness/device/capabilities.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

TEST(CapabilitiesTest, RecordsUnsupportedOpsPerDeviceType) {
  auto& caps = Capabilities::global();
  caps.record_unsupported(c10::DeviceType::Meta, "aten::test_only_op");
  caps.record_unsupported(c10::DeviceType::Meta, "aten::test_only_op");
  EXPECT_TRUE(caps.known_unsupported(c10::DeviceType::Meta, "aten::test_only_op"));
  EXPECT_FALSE(caps.known_unsupported(c10::DeviceType::CPU, "aten::test_only_op"));
  const auto j = caps.to_json();
  ASSERT_TRUE(j.contains("meta"));
  EXPECT_EQ(std::count(j["meta"].begin(), j["meta"].end(), "aten::test_only_op"), 1);
}

}  // namespace
}  // namespace devparity
