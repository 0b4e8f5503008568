// The asynchronous virtual device: work runs later on streams, only
// synchronisation orders it, and the race detector names what nothing orders.

#include "harness/vdev/async.h"

#include "harness/builtins.h"
#include "harness/vdev/vdev.h"
#include "tests/support/async_vdev.h"

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

constexpr auto kVdev = c10::DeviceType::PrivateUse1;

class VdevAsyncTest : public testing::AsyncVdevTest {
 protected:
  const c10::Device v0_ = vdev::device(0);
  const c10::Device v1_ = vdev::device(1);
  c10::impl::VirtualGuardImpl impl_{kVdev};
};

bool any_race_names(const std::vector<vdev::async::Race>& races, const std::string& words) {
  for (const auto& r : races) {
    if (r.describe().find(words) != std::string::npos) return true;
  }
  return false;
}

std::string all(const std::vector<vdev::async::Race>& races) {
  std::string out;
  for (const auto& r : races) out += r.describe() + "\n";
  return out;
}

TEST_F(VdevAsyncTest, ValuesEqualTheCpusInEveryInterleaving) {
  const auto x = at::rand({2, 3, 9, 7});
  const auto w = at::rand({4, 3, 3, 3});
  const auto expected = (at::conv2d(x * 2.0 + 1.0, w).relu().sum({1}, true) / 3.0).flip({3});
  for (uint64_t seed = 0; seed < 20; ++seed) {
    vdev::async::Session session(seed);
    const auto xv = x.to(v0_);
    const auto y = (at::conv2d(xv * 2.0 + 1.0, w.to(v0_)).relu().sum({1}, true) / 3.0).flip({3});
    const auto mask = at::tensor({1, 0}).to(at::kBool);
    EXPECT_TRUE(at::equal(y.cpu(), expected)) << "seed " << seed;
    EXPECT_TRUE(at::equal(xv.index({mask}).cpu(), x.index({mask})));
    EXPECT_EQ(xv.sum().item<float>(), x.sum().item<float>());
    EXPECT_TRUE(session.finish().empty());
  }
}

// Note [Ops at their call while nothing overlaps]: on the default stream
// alone an op runs at its call; the first call that lets work overlap
// (another stream, an event, pinned memory, a non-blocking copy) queues
// from then on, in this session only.
TEST_F(VdevAsyncTest, OpsRunAtTheirCallUntilWorkCanOverlap) {
  const c10::DeviceGuard guard(v0_);
  const auto stream = impl_.getStream(v0_);
  for (const std::string how : {"pool stream", "event", "pinned memory", "non-blocking copy"}) {
    vdev::async::Session session(7);
    auto x = at::zeros({64}, at::TensorOptions().device(v0_));
    const auto before = vdev::async::counters();  // (after zeros: a fill, or an empty and a zero_)
    for (int i = 0; i < 10; ++i) x.add_(1.0);
    EXPECT_EQ(vdev::async::counters().at_call - before.at_call, 10) << how;
    if (how == "pool stream") {
      const c10::StreamGuard on_pool(impl_.getStreamFromGlobalPool(v0_));
    } else if (how == "event") {
      c10::Event e(kVdev);
      e.record(stream);
    } else if (how == "pinned memory") {
      vdev::async::pinned_empty({4}, at::kFloat);
    } else {
      x.copy_(at::ones({64}) * 10.0, /*non_blocking=*/true);
    }
    const auto queued = vdev::async::counters();
    for (int i = 0; i < 10; ++i) x.add_(1.0);
    EXPECT_EQ(vdev::async::counters().at_call, queued.at_call) << how;
    EXPECT_GE(vdev::async::counters().enqueued - queued.enqueued, 10) << how;
    EXPECT_EQ(x.cpu()[0].item<float>(), 20.0f) << how;
    EXPECT_TRUE(session.finish().empty()) << how;
  }
  vdev::async::Session next(8);  // a new session starts at the call again
  auto y = at::zeros({8}, at::TensorOptions().device(v0_));
  const auto before = vdev::async::counters().at_call;
  y.add_(1.0);
  EXPECT_EQ(vdev::async::counters().at_call - before, 1);
  EXPECT_TRUE(next.finish().empty());
}

TEST_F(VdevAsyncTest, QueuedWorkRunsLaterAndSyncsWaitForIt) {
  const c10::DeviceGuard guard(v0_);
  vdev::async::Session session(7);
  { const c10::StreamGuard on_pool(impl_.getStreamFromGlobalPool(v0_)); }  // work may overlap from here
  const auto before = vdev::async::counters().enqueued;
  auto x = at::zeros({64}, at::TensorOptions().device(v0_));
  for (int i = 0; i < 50; ++i) x.add_(1.0);
  EXPECT_GT(vdev::async::counters().enqueued - before, 50);
  const auto stream = impl_.getStream(v0_);
  impl_.synchronizeStream(stream);
  EXPECT_TRUE(impl_.queryStream(stream));
  EXPECT_EQ(x.cpu()[0].item<float>(), 50.0f);
  EXPECT_TRUE(session.finish().empty());
}

// The seeded ordering bug: the event recorded before the copy it should
// follow, and the host reads the pinned buffer when the event is done.
TEST_F(VdevAsyncTest, AnEventRecordedBeforeTheCopyIsARaceInEverySeed) {
  int poisoned = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    vdev::async::Session session(seed);
    const auto src = (at::arange(4096, at::TensorOptions().dtype(at::kShort)).to(v0_) * 3).contiguous();
    auto host = vdev::async::pinned_empty({4096}, at::kShort);
    const auto stream = impl_.getStream(v0_);
    c10::Event copied(kVdev);
    copied.record(stream);  // too early
    host.copy_(src, /*non_blocking=*/true);
    while (!copied.query()) {
    }
    vdev::async::host_reads(host);
    if (!at::equal(host, at::arange(4096, at::TensorOptions().dtype(at::kShort)) * 3)) ++poisoned;
    const auto races = session.finish();
    EXPECT_TRUE(any_race_names(races, "host read of pinned memory")) << "seed " << seed << ": " << all(races);
  }
  EXPECT_GT(poisoned, 0) << "the host never read the poison: the interleaving never left the copy pending";
}

TEST_F(VdevAsyncTest, AnEventRecordedAfterTheCopyOrdersIt) {
  for (uint64_t seed = 0; seed < 100; ++seed) {
    vdev::async::Session session(seed);
    const auto src = (at::arange(4096, at::TensorOptions().dtype(at::kShort)).to(v0_) * 3).contiguous();
    auto host = vdev::async::pinned_empty({4096}, at::kShort);
    const auto stream = impl_.getStream(v0_);
    host.copy_(src, /*non_blocking=*/true);
    c10::Event copied(kVdev);
    copied.record(stream);
    while (!copied.query()) {
    }
    vdev::async::host_reads(host);
    EXPECT_TRUE(at::equal(host, at::arange(4096, at::TensorOptions().dtype(at::kShort)) * 3)) << seed;
    const auto races = session.finish();
    EXPECT_TRUE(races.empty()) << "seed " << seed << ": " << all(races);
  }
}

TEST_F(VdevAsyncTest, WorkOnAnotherStreamNeedsAWait) {
  for (const bool waits : {false, true}) {
    for (uint64_t seed = 0; seed < 30; ++seed) {
      vdev::async::Session session(seed);
      const auto x = at::rand({256}).to(v0_);
      const auto y = x * 2.0;  // on the default stream
      at::Tensor z;
      {
        const c10::StreamGuard on_pool(impl_.getStreamFromGlobalPool(v0_));
        if (waits) {
          c10::Event made(kVdev);
          made.record(impl_.getDefaultStream(v0_));
          made.block(impl_.getStream(v0_));
        }
        z = y + 1.0;
        c10::Event done(kVdev);
        done.record(impl_.getStream(v0_));
        done.block(impl_.getDefaultStream(v0_));
      }
      const auto races = session.finish();
      EXPECT_EQ(any_race_names(races, "pool stream"), !waits) << "seed " << seed << ": " << all(races);
    }
  }
}

// Note [Stream-ordered release]: a block freed while another stream's work
// on it is unseen by its allocation stream, and not given to record_stream.
TEST_F(VdevAsyncTest, ABlockFreedUnderAnotherStreamsWorkIsARaceUnlessRecordedOrWaitedFor) {
  for (const std::string how : {"nothing", "record_stream", "event"}) {
    for (uint64_t seed = 0; seed < 20; ++seed) {
      vdev::async::Session session(seed);
      const auto pool = impl_.getStreamFromGlobalPool(v0_);
      at::Tensor out;
      {
        auto x = at::full({1024}, 5.0f, at::TensorOptions().device(v0_));
        const c10::StreamGuard on_pool(pool);
        c10::Event made(kVdev);
        made.record(impl_.getDefaultStream(v0_));
        made.block(pool);
        out = x * 2.0;
        if (how == "record_stream") impl_.recordDataPtrOnStream(x.storage().data_ptr(), pool);
        if (how == "event") {
          c10::Event done(kVdev);
          done.record(pool);
          done.block(impl_.getDefaultStream(v0_));
        }
      }  // x freed on the host
      impl_.synchronizeStream(pool);
      const auto values = out.cpu();
      const auto races = session.finish();
      EXPECT_EQ(any_race_names(races, "record_stream"), how == "nothing") << how << " " << seed << ": " << all(races);
      if (how != "nothing") {
        EXPECT_TRUE(at::equal(values, at::full({1024}, 10.0f))) << how << " " << seed;
      }
    }
  }
}

// Backward runs on the autograd engine's device thread, with the streams the
// forward ops ran on: its gradients are the CPU's.
TEST_F(VdevAsyncTest, GradientsEqualTheCpusInEveryInterleaving) {
  const auto x = at::rand({2, 3, 5, 4}, at::TensorOptions().dtype(at::kDouble));
  auto grad_of = [](const at::Tensor& input) {
    const auto leaf = input.detach().requires_grad_(true);
    // flip has no meta kernel on 1.13: its result, made on the host, is
    // read by queued work after autograd frees it.
    const auto y = (leaf * 3.0).sigmoid().flip({3}) * leaf;
    const auto w = at::linspace(-1.0, 1.0, y.numel(), y.options()).reshape(y.sizes());
    (y * w).sum().backward();
    return leaf.grad().cpu();
  };
  const auto expected = grad_of(x);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    vdev::async::Session session(seed);
    EXPECT_TRUE(at::equal(grad_of(x.to(v0_)), expected)) << "seed " << seed;
    EXPECT_TRUE(session.finish().empty());
  }
}

}  // namespace
}  // namespace devparity
