#include "harness/vdev/autograd_threads.h"

#include <torch/csrc/autograd/engine.h>

#include <pthread.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace devparity::vdev::autograd_threads {

// Note [Autograd device threads]
// PyTorch's autograd engine runs each device index's backward work on a thread
// of that index, and makes the pool of those threads once per process, at the
// first backward (Engine::start_device_threads; engine.cpp of 1.13, 2.6 and
// 2.11 alike): one queue and thread per index up to the largest deviceCount()
// of the device guards registered then. A node on index k is pushed to queue k
// (Engine::ready_queue), and where the pool has no queue k the engine asserts
// (1.13's engine.cpp:1263, "0 <= device.index() && device.index() <
// device_ready_queues_.size()"). So any backward before the virtual device was
// installed - a training step, a notebook cell, a CPU-only audit, a probe -
// fixed a pool without vdev's indices, and every later backward on vdev failed
// in that process and in its forks, which copy the engine.
//
// install() therefore serves vdev's indices itself, whatever ran before:
//  - the pool is made now if no backward made it yet (the engine's public
//    initialize_device_threads_pool()), with the virtual device counting no
//    devices while PyTorch sizes it (sizing_pool());
//  - devparity then adds a queue and a thread for each index the pool lacks,
//    the thread being the engine's own thread_init (the base class's:
//    start_thread() says why).
// PyTorch marks every fork of a process whose engine started device threads as
// unable to run autograd (the threads do not survive the fork): that is right
// for CUDA, which a fork cannot use either, but it made audit(isolate=True)'s
// forked worker refuse gradients after any earlier audit. The threads devparity
// starts are not marked; in a fork they are started again instead, at its
// first vdev allocation (renew_after_fork()). A pool PyTorch made with device
// threads of its own (CUDA's; the Vulkan guard of Debian's LibTorch 2.6 counts a
// device too) keeps PyTorch's rule: forks_refuse_autograd() says so, and
// audit(isolate=True) then starts a fresh interpreter instead of a fork.
namespace {

namespace ag = torch::autograd;

// The engine's pool, a protected member: named through a class derived from
// the engine, its pointer to member reads it on the process's engine.
struct EngineInternals : ag::Engine {
  static std::vector<std::shared_ptr<ag::ReadyQueue>>& queues(ag::Engine& engine) {
    return engine.*(&EngineInternals::device_ready_queues_);
  }
};

std::mutex g_mutex;
thread_local bool t_sizing = false;
std::atomic<bool> g_forked{false};
int g_first_ours = -1;  // the pool's first index devparity added (-1: none)

void forked_child() { g_forked.store(true); }

// While the engine sizes its pool on this thread, the virtual device counts none.
struct Sizing {
  Sizing() { t_sizing = true; }
  ~Sizing() { t_sizing = false; }
  Sizing(const Sizing&) = delete;
  Sizing& operator=(const Sizing&) = delete;
};

// The engine's own thread body, not an override's: Python's engine would first
// take the interpreter lock to make the thread a Python state, and a thread
// still waiting for it when the interpreter finalizes is ended by Python
// through C++ frames (std::terminate). Python code in a backward takes the
// lock itself (pybind11's gil_scoped_acquire), as on any thread.
void start_thread(ag::Engine& engine, int index, std::shared_ptr<ag::ReadyQueue> queue) {
  std::thread([&engine, index, queue = std::move(queue)] {
    engine.ag::Engine::thread_init(index, queue, /*should_increment=*/true);
  }).detach();
}

// Queues and threads for indices [size, count), after those the pool has.
void grow(ag::Engine& engine, int count) {
  auto& queues = EngineInternals::queues(engine);
  const int first = static_cast<int>(queues.size());
  std::vector<std::shared_ptr<ag::ReadyQueue>> grown(queues);
  for (int i = first; i < count; ++i) grown.push_back(std::make_shared<ag::ReadyQueue>());
  queues.swap(grown);
  static const int registered = pthread_atfork(nullptr, nullptr, &forked_child);
  (void)registered;
  if (g_first_ours < 0) g_first_ours = first;
  for (int i = first; i < count; ++i) start_thread(engine, i, queues[static_cast<size_t>(i)]);
}

// In a fork: fresh queues (a parent thread may have held one's lock at the
// fork) and threads for devparity's indices.
void renew(ag::Engine& engine) {
  try {
    engine.initialize_device_threads_pool();
  } catch (const c10::Error&) {
    return;  // PyTorch refuses autograd in this fork (its own device threads were lost)
  }
  auto& queues = EngineInternals::queues(engine);
  if (g_first_ours < 0 || static_cast<size_t>(g_first_ours) >= queues.size()) return;
  engine.release_workers();  // the parent's thread count: none of them exists here
  std::vector<std::shared_ptr<ag::ReadyQueue>> fresh(queues.begin(), queues.begin() + g_first_ours);
  for (size_t i = fresh.size(); i < queues.size(); ++i) fresh.push_back(std::make_shared<ag::ReadyQueue>());
  // The old queues stay allocated: destroying a mutex a vanished thread held is undefined.
  new std::vector<std::shared_ptr<ag::ReadyQueue>>(std::move(queues));
  queues = std::move(fresh);
  for (size_t i = static_cast<size_t>(g_first_ours); i < queues.size(); ++i) {
    start_thread(engine, static_cast<int>(i), queues[i]);
  }
}

void renew_locked() {
  if (!g_forked.exchange(false)) return;
  renew(ag::Engine::get_default_engine());
}

}  // namespace

bool sizing_pool() { return t_sizing; }

void serve(int count) {
  std::lock_guard<std::mutex> lock(g_mutex);
  renew_locked();
  auto& engine = ag::Engine::get_default_engine();
  try {
    const Sizing sizing;
    engine.initialize_device_threads_pool();
  } catch (const c10::Error&) {
    return;  // a fork PyTorch refuses autograd in: no backward runs here at all
  }
  if (static_cast<int>(EngineInternals::queues(engine).size()) < count) grow(engine, count);
}

void renew_after_fork() {
  if (!g_forked.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  renew_locked();
}

bool forks_refuse_autograd() {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto made = EngineInternals::queues(ag::Engine::get_default_engine()).size();
  return (g_first_ours < 0 ? made : static_cast<size_t>(g_first_ours)) > 0;
}

int pool_size() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return static_cast<int>(EngineInternals::queues(ag::Engine::get_default_engine()).size());
}

}  // namespace devparity::vdev::autograd_threads
