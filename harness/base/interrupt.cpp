#include "harness/base/interrupt.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace devparity::interrupt {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<int> g_signal{0};
std::atomic<bool> g_abandoned{false};

void on_signal(int sig) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig)) {
    // The second one: stop now, as the default action would.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
}

}  // namespace

void install() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a worker's poll() wakes up
  for (const int sig : kStopSignals) sigaction(sig, &action, nullptr);
  release();  // one held since before LibTorch loaded arrives now, at the handler
}

void hold() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : kStopSignals) sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void release() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : kStopSignals) sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return nullptr;
  }
}

int signal() { return g_signal.load(); }

void request(int sig) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);
  g_abandoned.store(true);
}

bool abandoned() { return g_abandoned.load(); }

void reset() {
  g_signal.store(0);
  g_abandoned.store(false);
}

}  // namespace devparity::interrupt
