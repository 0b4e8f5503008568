#pragma once
// A fixture whose tests run with the asynchronous vdev on (vdev/async.h),
// skipped with the reason in builds without the virtual device.

#include "harness/builtins.h"
#include "harness/vdev/vdev.h"
#include "harness/vdev/async.h"

#include <gtest/gtest.h>

namespace devparity::testing {

class AsyncVdevTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
    vdev::async::set_enabled(true);
  }
  void TearDown() override {
    if (vdev::compiled()) vdev::async::set_enabled(false);
  }
};

}  // namespace devparity::testing
