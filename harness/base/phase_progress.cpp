#include "harness/base/phase_progress.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <thread>

namespace devparity {
namespace {

std::atomic<double> g_every_s{0.0};
std::atomic<std::ostream*> g_out{nullptr};

}  // namespace

struct PhaseProgress::State {
  std::string what, unit;
  uint64_t total = 0;
  std::atomic<uint64_t> done{0};
  std::mutex mutex;
  std::condition_variable wake;
  bool finished = false;
  std::thread watcher;
};

void PhaseProgress::configure(double every_s, std::ostream* out) {
  g_every_s = out == nullptr ? 0.0 : every_s;
  g_out = out;
}

PhaseProgress::PhaseProgress(std::string what, uint64_t total, std::string unit) {
  const double every_s = g_every_s;
  auto* out = g_out.load();
  if (every_s <= 0 || out == nullptr) return;
  state_ = std::make_unique<State>();
  state_->what = std::move(what);
  state_->unit = std::move(unit);
  state_->total = total;
  state_->watcher = std::thread([s = state_.get(), every_s, out] {
    const auto start = std::chrono::steady_clock::now();
    const auto period = std::chrono::duration<double>(every_s);
    std::unique_lock<std::mutex> lock(s->mutex);
    while (!s->wake.wait_for(lock, period, [s] { return s->finished; })) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const uint64_t done = s->done;
      const std::string estimate =
          done > 0 && done < s->total
              ? fmt::format(", about {:.0f} s left", seconds * static_cast<double>(s->total - done) / done)
              : "";
      *out << fmt::format("progress: {}: {} of {} {} ({:.0f} s{})\n", s->what, done, s->total, s->unit, seconds,
                          estimate)
           << std::flush;
    }
  });
}

PhaseProgress::~PhaseProgress() {
  if (!state_) return;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->finished = true;
  }
  state_->wake.notify_all();
  state_->watcher.join();
}

void PhaseProgress::advance(uint64_t n) {
  if (state_) state_->done += n;
}

}  // namespace devparity
