// vdev's mode (Note [vdev's mode] in vdev/mode.h) and its readers on the
// hot paths: async::enabled(), async::pinned_release(),
// cuda_arithmetic::enabled() and perturb::session() read it here.
#include "harness/vdev/mode.h"

#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/perturb.h"
#include "harness/vdev/vdev.h"

#include <atomic>
#include <mutex>
#include <utility>

namespace devparity::vdev {
namespace {

class Current {
 public:
  Mode get() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return mode_;
  }

  void set(Mode m) {
    m.async = m.async && compiled();
    // Work queued in asynchronous mode runs before any op runs at its call.
    if (async_.load() && !m.async) async::drain_all();
    const std::lock_guard<std::mutex> lock(mutex_);
    async_.store(m.async);
    release_.store(m.pinned_release);
    arithmetic_.store(m.cuda_arithmetic);
    mode_ = std::move(m);
  }

  bool async() const { return async_.load(std::memory_order_relaxed); }
  async::PinnedRelease pinned_release() const { return release_.load(); }
  bool cuda_arithmetic() const { return arithmetic_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex mutex_;
  Mode mode_;
  std::atomic<bool> async_{false};
  std::atomic<async::PinnedRelease> release_{async::PinnedRelease::kPooled};
  std::atomic<bool> arithmetic_{true};
};

// Never destroyed: a scope may end during static destruction.
Current& current() {
  static auto* c = new Current;
  return *c;
}

}  // namespace

Mode mode() { return current().get(); }

ModeScope::ModeScope(Mode mode) : was_(current().get()) { current().set(std::move(mode)); }

ModeScope::~ModeScope() { current().set(std::move(was_)); }

bool async::enabled() { return current().async(); }

async::PinnedRelease async::pinned_release() { return current().pinned_release(); }

bool cuda_arithmetic::enabled() { return current().cuda_arithmetic(); }

std::vector<std::string> perturb::session() { return current().get().perturb; }

}  // namespace devparity::vdev
