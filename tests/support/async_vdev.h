#pragma once
// A fixture whose tests run with the asynchronous vdev on (vdev/async.h),
// skipped with the reason in builds without the virtual device.

#include "harness/builtins.h"
#include "harness/vdev/vdev.h"
#include "harness/vdev/async.h"
#include "tests/support/vdev_mode.h"

#include <gtest/gtest.h>

namespace devparity::testing {

class AsyncVdevTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
    mode_.emplace(testing::mode_with_async(true));
  }
  void TearDown() override { mode_.reset(); }
  std::optional<vdev::ModeScope> mode_;
};

}  // namespace devparity::testing
