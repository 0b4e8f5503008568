// vdev's mode (Note [vdev's mode]): one value, set by a scope and put back
// as it was.

#include "harness/vdev/mode.h"

#include "harness/builtins.h"
#include "harness/vdev/async.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/perturb.h"
#include "harness/vdev/vdev.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

vdev::Mode all_changed() {
  vdev::Mode m;
  m.async = true;
  m.pinned_release = vdev::async::PinnedRelease::kEager;
  m.cuda_arithmetic = false;
  m.perturb = {"tf32", "tie_order"};
  return m;
}

class VdevModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
  }
};

TEST_F(VdevModeTest, AScopeSetsEveryPartAndPutsBackTheModeItFound) {
  const auto before = vdev::mode();
  {
    const vdev::ModeScope scope(all_changed());
    EXPECT_TRUE(vdev::async::enabled());
    EXPECT_EQ(vdev::async::pinned_release(), vdev::async::PinnedRelease::kEager);
    EXPECT_FALSE(vdev::cuda_arithmetic::enabled());
    EXPECT_EQ(vdev::perturb::session(), (std::vector<std::string>{"tf32", "tie_order"}));
  }
  const auto after = vdev::mode();
  EXPECT_EQ(after.async, before.async);
  EXPECT_EQ(after.pinned_release, before.pinned_release);
  EXPECT_EQ(after.cuda_arithmetic, before.cuda_arithmetic);
  EXPECT_EQ(after.perturb, before.perturb);
  EXPECT_EQ(vdev::async::enabled(), before.async);
  EXPECT_EQ(vdev::cuda_arithmetic::enabled(), before.cuda_arithmetic);
}

// The twin of a session that keeps what ran before: an inner scope's mode is
// its own, not the outer one's with parts changed.
TEST_F(VdevModeTest, AnInnerScopeIsItsOwnModeWhateverTheOuterOneSet) {
  const vdev::ModeScope outer(all_changed());
  {
    const vdev::ModeScope inner{vdev::Mode{}};
    EXPECT_FALSE(vdev::async::enabled());
    EXPECT_EQ(vdev::async::pinned_release(), vdev::async::PinnedRelease::kPooled);
    EXPECT_TRUE(vdev::cuda_arithmetic::enabled());
    EXPECT_TRUE(vdev::perturb::session().empty());
  }
  EXPECT_TRUE(vdev::async::enabled());
  EXPECT_FALSE(vdev::cuda_arithmetic::enabled());
}

}  // namespace
}  // namespace devparity
