#pragma once
/// Note [In-process timeout]
/// Without --isolate, a watchdog ends the run when a trial runs past the
/// limit. The stuck thread cannot be stopped, so the watchdog reports the
/// trial, lets every reporter write its file and exits the process. So too
/// when SIGINT or SIGTERM asked the run to stop and the trial in progress
/// has not returned within kStuckAfterSignal: it is abandoned (not
/// reported), the reports are written marked interrupted, and the exit code
/// is 128 + the signal; without this, Ctrl-C on a hung trial did nothing
/// until --timeout-s.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>

namespace devparity {

class Watchdog {
 public:
  /// Called on the watchdog's thread, with its lock held, for the trial that
  /// ran too long (plan group, trial; `signal` 0) or did not return after a
  /// signal asked the run to stop (`signal` that signal). It does not
  /// return: it ends the process.
  using OnTimeout = std::function<void(size_t group, size_t trial, int signal)>;

  /// How long a trial may go on after SIGINT or SIGTERM before it counts as stuck.
  static constexpr std::chrono::seconds kStuckAfterSignal{3};

  /// A watchdog for `timeout_s` seconds per trial; 0 watches nothing.
  Watchdog(double timeout_s, OnTimeout on_timeout);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// A trial starts now.
  void started(size_t group, size_t trial);
  /// The running trial is done: `report` runs under the lock, so it never
  /// overlaps a timeout's report.
  void finished(const std::function<void()>& report);

 private:
  using Clock = std::chrono::steady_clock;
  void watch();

  const double timeout_s_;
  const OnTimeout on_timeout_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool active_ = false;
  size_t group_ = 0, trial_ = 0;
  Clock::time_point since_;
  Clock::time_point signalled_at_{};
  bool signalled_ = false;
  std::thread thread_;
};

}  // namespace devparity
