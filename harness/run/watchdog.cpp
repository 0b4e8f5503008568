#include "harness/run/watchdog.h"

#include "harness/base/interrupt.h"

namespace devparity {

Watchdog::Watchdog(double timeout_s, OnTimeout on_timeout)
    : timeout_s_(timeout_s), on_timeout_(std::move(on_timeout)) {
  if (timeout_s_ > 0) thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::started(size_t group, size_t trial) {
  std::lock_guard<std::mutex> lock(mutex_);
  active_ = true;
  group_ = group;
  trial_ = trial;
  since_ = Clock::now();
}

void Watchdog::finished(const std::function<void()>& report) {
  std::lock_guard<std::mutex> lock(mutex_);
  active_ = false;
  report();
}

void Watchdog::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    if (stop_ || !active_) continue;
    const auto now = Clock::now();
    if (const int sig = interrupt::signal(); sig != 0) {
      if (!signalled_) signalled_at_ = now;
      signalled_ = true;
      if (now - signalled_at_ >= kStuckAfterSignal) on_timeout_(group_, trial_, sig);
    }
    if (now - since_ >= limit) on_timeout_(group_, trial_, 0);
  }
}

}  // namespace devparity
