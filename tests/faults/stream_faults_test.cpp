// The seeded stream-ordering faults (stream_faults.cpp), on the asynchronous
// vdev without a GPU: every fault is caught in 100 of 100 interleavings, by
// the race detector whatever the interleaving (and by its check where the
// interleaving left the damage visible); every clean twin passes in all 100.

#include "harness/vdev/vdev.h"
#include "harness/vdev/async.h"
#include "tests/support/async_vdev.h"
#include "tests/support/run_suite.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

using nlohmann::json;
using testing::EventRecorder;

constexpr int kSeeds = 100;

class StreamFaultsTest : public testing::AsyncVdevTest {
 protected:
  // One case per seed: each draws its own interleaving.
  static EventRecorder run(const std::string& subject, bool jpeg, int interleavings = 1,
                           vdev::async::PinnedRelease release = vdev::async::PinnedRelease::kPooled) {
    json cases = json::array();
    for (int seed = 0; seed < kSeeds; ++seed) {
      json c = {{"name", "seed" + std::to_string(seed)},
                {"subject", subject},
                {"seed", seed},
                {"inputs", {{{"pattern", "edges"}, {"shape", {1, 3, 37, 45}}}}},
                {"dtypes", {jpeg ? "uint8" : "float32"}}};
      if (jpeg) c["params"] = {{"quality", 85}};
      cases.push_back(c);
    }
    RunConfig config;
    config.vdev_async = true;
    config.interleavings = interleavings;
    config.pinned_release = release;
    return testing::run_suite({{"cases", cases}}, "cpu,vdev:1", 0, "", nullptr, config);
  }

  static bool raced(const TrialResult& r) {
    for (const auto& check : r.checks) {
      for (const auto& f : check.findings) {
        if (f.value("kind", "") == "unsynchronized_access") return true;
      }
    }
    return false;
  }

  // Every vdev:1 trial fails with the race; returns how many also failed another check.
  static int expect_caught(const EventRecorder& r, const std::string& words) {
    int damaged = 0, trials = 0;
    for (const auto& result : r.results) {
      if (result.device != "vdev:1") continue;
      ++trials;
      EXPECT_EQ(result.status, Status::kFail) << result.id << ": " << result.message;
      EXPECT_TRUE(raced(result)) << result.id << ": " << result.message;
      EXPECT_TRUE(result.interleaving_seed.has_value()) << result.id;
      bool found_words = false;
      for (const auto& check : result.checks) {
        for (const auto& f : check.findings) found_words |= f.value("message", "").find(words) != std::string::npos;
        if (check.name != "placement" && check.status == Status::kFail) ++damaged;
      }
      EXPECT_TRUE(found_words) << result.id << ": no finding says '" << words << "'";
    }
    EXPECT_EQ(trials, kSeeds);
    return damaged;
  }

  static void expect_clean(const EventRecorder& r) {
    int trials = 0;
    for (const auto& result : r.results) {
      trials += result.device == "vdev:1";
      EXPECT_NE(result.status, Status::kFail) << result.id << ": " << result.message;
      EXPECT_FALSE(raced(result)) << result.id << ": " << result.message;
    }
    EXPECT_EQ(trials, kSeeds);
    EXPECT_EQ(r.summary.exit_code(), 0);
  }
};

TEST_F(StreamFaultsTest, AnEventRecordedBeforeTheCopyIsCaught) {
  const int noise = expect_caught(run("fault_stream_event_before_copy", true), "host read of pinned memory");
  std::cout << "jpeg check failed too (noise) in " << noise << " of " << kSeeds << " interleavings\n";
  expect_clean(run("clean_stream_event_before_copy", true));
}

TEST_F(StreamFaultsTest, PoolStreamWorkWithoutAWaitIsCaught) {
  expect_caught(run("fault_stream_pool_no_wait", false), "pool stream");
  expect_clean(run("clean_stream_pool_no_wait", false));
}

TEST_F(StreamFaultsTest, APinnedBufferReusedWhileItsCopyIsPendingIsCaught) {
  const int wrong = expect_caught(run("fault_stream_pinned_reuse", false), "host write");
  std::cout << "parity failed too in " << wrong << " of " << kSeeds << " interleavings\n";
  expect_clean(run("clean_stream_pinned_reuse", false));
}

TEST_F(StreamFaultsTest, TheCallersStreamReadingATransferStreamsCopyIsCaught) {
  expect_caught(run("fault_stream_default_reads_transfer", false), "copy between vdev tensors");
  expect_clean(run("clean_stream_default_reads_transfer", false));
}

// Note [Allocation is an access]: torchvision#9606's decoder shape.
TEST_F(StreamFaultsTest, AnAllocationWrittenOnAnotherStreamWithoutAWaitIsCaught) {
  expect_caught(run("fault_stream_write_before_allocation_ready", false), "allocation (write) on vdev:1 default stream");
  expect_clean(run("clean_stream_write_before_allocation_ready", false));
}

// Note [Eager pinned release]: PyTorch's pool waits for the copy (pytorch#130785
// was a pool that did not), so both twins are right in the default mode.
TEST_F(StreamFaultsTest, APinnedSourceDroppedWhileItsCopyIsPendingIsCaughtUnderEagerRelease) {
  constexpr auto kEager = vdev::async::PinnedRelease::kEager;
  const int wrong = expect_caught(run("fault_stream_pinned_source_dropped", false, 1, kEager), "dropped on the host");
  std::cout << "parity failed too (the copy read poison) in " << wrong << " of " << kSeeds << " interleavings\n";
  expect_clean(run("clean_stream_pinned_source_dropped", false, 1, kEager));
  expect_clean(run("fault_stream_pinned_source_dropped", false));
  expect_clean(run("clean_stream_pinned_source_dropped", false));
}

// Note [Interleaving sweep]: no op reads the staging buffer on the host, so
// the detector is blind; the trial's own interleaving shows the poison byte
// only when the copy had not run (parity fails), and a sweep of two (the
// lazy schedule with the other poison byte) disagrees with it every time.
TEST_F(StreamFaultsTest, AnUndeclaredHostReadIsCaughtByAnInterleavingSweep) {
  const int parity_alone =
      expect_caught(run("fault_stream_undeclared_host_read", false, 2), "the race detector did not see");
  std::cout << "parity alone caught " << parity_alone << " of " << kSeeds << "; the sweep of 2 caught every one\n";
  EXPECT_LT(parity_alone, kSeeds) << "the trial's own interleaving always showed it: the sweep is not what caught it";
  expect_clean(run("clean_stream_undeclared_host_read", false, 8));
}

}  // namespace
}  // namespace devparity
