// vdev streams, events and the scheduler that runs their work later (Note
// [Asynchronous virtual device] in vdev/async.h).
//
// Note [Scheduler]
// One recursive mutex orders every host-side call (submits, syncs, events).
// Queued work runs one item at a time on the host thread that lets it run
// (a submit's draw, a sync), under the lock: the interleaving is then a
// function of the program's calls and the session's seed, so a failure
// replays. After each
// submit the scheduler runs a drawn number (0 to 3) of queue heads, each
// from a stream drawn among those whose head may run (none at all in the
// lazy schedule); a host sync runs only what it needs (its stream, and the
// streams it waits on), so ordering bugs keep their window open as long as
// the program allows. A polled event advances its stream by one item per
// query, as time passes on a GPU, so polling loops end in every schedule.

#include "harness/vdev/runtime.h"

#include <ATen/record_function.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <array>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <random>

namespace devparity::vdev::runtime {
namespace {

constexpr auto kType = c10::DeviceType::PrivateUse1;
constexpr int kMaxDevices = 16;
constexpr int kPoolSize = 32;              // as CUDA's pool of streams per device
constexpr c10::StreamId kFirstNewStream = 1024;
constexpr int kMaxActors = 8192;

// An event's latest record: done when `actor` has run its work up to `seq`.
struct EventState {
  Actor actor = -1;
  uint64_t seq = 0;
  Clock clock;
};
struct EventHandle {
  std::shared_ptr<EventState> state = std::make_shared<EventState>();
};

struct Item {
  uint64_t seq = 0;
  Work work;
  // A wait: runs once `wait_actor` has done `wait_seq`.
  Actor wait_actor = -1;
  uint64_t wait_seq = 0;
};

struct StreamState {
  c10::Stream stream;
  Actor actor;
  std::deque<Item> queue;
  uint64_t enqueued = 0;
  Clock clock;
  Name label = nullptr;  // "vdev:1 pool stream 2" (Note [Names the detector keeps])
};

std::recursive_mutex g_sched;
std::map<std::pair<int, c10::StreamId>, Actor> g_by_stream;
std::vector<std::unique_ptr<StreamState>> g_actors(1);  // [0]: the host
std::array<std::atomic<uint64_t>, kMaxActors> g_done{};  // read without the lock (frees)
Clock g_host_clock(1, 0);
uint64_t g_host_seq = 0;
std::mt19937_64 g_rng;
bool g_lazy = false;  // async::Schedule::kLazy
std::atomic<bool> g_overlapping{false};  // Note [Ops at their call while nothing overlaps]
std::atomic<int> g_next_pool[kMaxDevices];
std::atomic<c10::StreamId> g_next_new{kFirstNewStream};
std::string g_async_error;
std::atomic<uint8_t> g_poison{0xBE};
std::atomic<int64_t> g_enqueued{0}, g_host_waits{0}, g_poisoned{0}, g_at_call{0};
int g_sessions = 0;
uint64_t g_next_session = 1;
thread_local uint64_t tls_session = 0;
thread_local std::array<c10::StreamId, kMaxDevices> tls_stream{};

void merge(Clock& into, const Clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

void tick(Clock& clock, Actor actor, uint64_t seq) {
  if (clock.size() <= static_cast<size_t>(actor)) clock.resize(static_cast<size_t>(actor) + 1, 0);
  clock[static_cast<size_t>(actor)] = seq;
}

std::string stream_label(const c10::Stream& stream) {
  const auto dev = "vdev:" + std::to_string(static_cast<int>(stream.device_index()));
  if (stream.id() == 0) return dev + " default stream";
  if (stream.id() <= kPoolSize) return dev + " pool stream " + std::to_string(stream.id());
  return dev + " stream " + std::to_string(stream.id());
}

StreamState& state_of(const c10::Stream& stream) {
  const auto key = std::make_pair(static_cast<int>(stream.device_index()), stream.id());
  const auto it = g_by_stream.find(key);
  if (it != g_by_stream.end()) return *g_actors[static_cast<size_t>(it->second)];
  TORCH_CHECK(g_actors.size() < static_cast<size_t>(kMaxActors), "vdev: too many streams (", kMaxActors, ")");
  const Actor actor = static_cast<Actor>(g_actors.size());
  g_actors.push_back(std::make_unique<StreamState>(StreamState{stream, actor, {}, 0, {}, intern(stream_label(stream))}));
  g_by_stream.emplace(key, actor);
  return *g_actors.back();
}

thread_local bool tls_in_work = false;

// The dispatcher's thread-local state a kernel runs under when called from
// a backend: a fresh thread's (no mode, autocast or functorch layer), below
// autograd (kernels assert it: mkldnn's).
c10::impl::LocalDispatchKeySet below_autograd() {
  c10::impl::PODLocalDispatchKeySet keys{};
  keys.set_included(c10::default_included_set);
  keys.set_excluded(c10::default_excluded_set | c10::autograd_dispatch_keyset_with_ADInplaceOrView);
  return c10::impl::LocalDispatchKeySet(keys);
}

// Note [Scheduler]: queued work runs on the thread that lets it run, as the
// device's own work: no observer sees its ops, and the dispatcher's
// thread-local state is a backend kernel's (below_autograd), so the CPU
// kernel runs as it would on a device's queue.
void run_work(const std::function<void()>& job) {
  if (tls_in_work) {
    job();
    return;
  }
  const at::DisableRecordFunctionGuard quiet;
  const c10::impl::ForceDispatchKeyGuard fresh{below_autograd()};
  struct InWork {
    InWork() { tls_in_work = true; }
    ~InWork() { tls_in_work = false; }
  } const in_work;
  job();
}

bool may_run(const StreamState& s) {
  if (s.queue.empty()) return false;
  const auto& head = s.queue.front();
  return head.wait_actor < 0 || g_done[static_cast<size_t>(head.wait_actor)].load() >= head.wait_seq;
}

// Runs the head of `s` (which may run).
void run_head(StreamState& s) {
  Item item = std::move(s.queue.front());
  s.queue.pop_front();
  if (item.work.run) {
    try {
      run_work(item.work.run);
    } catch (const std::exception& e) {
      // As CUDA's asynchronous errors: reported at the next sync point.
      if (g_async_error.empty()) g_async_error = item.work.name + ": " + e.what();
    }
  }
  g_done[static_cast<size_t>(s.actor)].store(item.seq);
  item.work.run = nullptr;  // its captures go before the blocks they kept
  reap();
}

void raise_async_error() {
  if (g_async_error.empty()) return;
  const auto message = std::exchange(g_async_error, std::string());
  TORCH_CHECK(false, "vdev: an asynchronous error in work queued earlier, ", message);
}

// The interleaving: a drawn number of queue heads from drawn streams.
void wander() {
  if (g_lazy) return;
  std::uniform_int_distribution<int> steps(0, 3);
  for (int n = steps(g_rng); n > 0; --n) {
    std::vector<StreamState*> ready;
    for (size_t a = 1; a < g_actors.size(); ++a) {
      if (may_run(*g_actors[a])) ready.push_back(g_actors[a].get());
    }
    if (ready.empty()) return;
    std::uniform_int_distribution<size_t> pick(0, ready.size() - 1);
    run_head(*ready[pick(g_rng)]);
  }
}

void run_actor_through(Actor actor, uint64_t seq) {
  auto& s = *g_actors[static_cast<size_t>(actor)];
  while (g_done[static_cast<size_t>(actor)].load() < seq && !s.queue.empty()) {
    const auto& head = s.queue.front();
    if (!may_run(s)) {
      run_actor_through(head.wait_actor, head.wait_seq);
      continue;
    }
    run_head(s);
  }
}

void host_observes(const Clock& clock) { merge(g_host_clock, clock); }

c10::Stream make_stream(c10::DeviceIndex device, c10::StreamId id) {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(kType, device), id);
}

}  // namespace

c10::Stream current_stream(c10::DeviceIndex device) {
  return make_stream(device, tls_stream[static_cast<size_t>(device) % kMaxDevices]);
}

void set_current_stream(const c10::Stream& stream) {
  if (stream.id() != 0) overlap_begins();
  tls_stream[static_cast<size_t>(stream.device_index()) % kMaxDevices] = stream.id();
}

c10::Stream pool_stream(c10::DeviceIndex device) {
  const int n = g_next_pool[static_cast<size_t>(device) % kMaxDevices].fetch_add(1);
  return make_stream(device, 1 + n % kPoolSize);
}

c10::Stream new_stream(c10::DeviceIndex device) { return make_stream(device, g_next_new.fetch_add(1)); }

Actor actor_of(const c10::Stream& stream) {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  return state_of(stream).actor;
}

std::string actor_label(Actor actor) {
  if (actor == kHost) return "host";
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  return *g_actors[static_cast<size_t>(actor)]->label;
}

bool seen_at_free(Actor allocated_on, Actor actor, uint64_t seq) {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  Clock clock = g_host_clock;
  if (allocated_on != kHost) merge(clock, g_actors[static_cast<size_t>(allocated_on)]->clock);
  return static_cast<size_t>(actor) < clock.size() && clock[static_cast<size_t>(actor)] >= seq;
}

uint64_t actor_done(Actor actor) {
  return actor == kHost ? UINT64_MAX : g_done[static_cast<size_t>(actor)].load();
}

uint64_t actor_enqueued(Actor actor) {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  return actor == kHost ? g_host_seq : g_actors[static_cast<size_t>(actor)]->enqueued;
}

uint64_t submit(const c10::Stream& stream, Work work) {
  // Before the lock: a provider may take another lock (Python's, to read frames).
  const auto site = current_site();
  const auto op = intern(work.name);
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  auto& s = state_of(stream);
  merge(s.clock, g_host_clock);  // what the host did or saw comes first
  const uint64_t seq = ++s.enqueued;
  tick(s.clock, s.actor, seq);
  for (const auto& spans : {&work.device, &work.host}) {
    for (const auto& span : *spans) {
      check_access(Access{s.actor, seq, span, op, site}, s.clock);
      note_use(span, s.actor, seq, op, s.label);
    }
  }
  Item item;
  item.seq = seq;
  item.work = std::move(work);
  s.queue.push_back(std::move(item));
  g_enqueued.fetch_add(1);
  wander();
  return seq;
}

void run_through(const c10::Stream& stream, uint64_t seq) {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  run_actor_through(state_of(stream).actor, seq);
  raise_async_error();
}

void synchronize_stream(const c10::Stream& stream) {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  auto& s = state_of(stream);
  run_actor_through(s.actor, s.enqueued);
  host_observes(s.clock);
  raise_async_error();
}

void synchronize_device(c10::DeviceIndex device) {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  for (size_t a = 1; a < g_actors.size(); ++a) {
    if (g_actors[a]->stream.device_index() == device) synchronize_stream(g_actors[a]->stream);
  }
}

bool stream_idle(const c10::Stream& stream) {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  auto& s = state_of(stream);
  if (!s.queue.empty()) return false;
  host_observes(s.clock);
  return true;
}

void record_event(void** event, const c10::Stream& stream) {
  overlap_begins();
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  if (*event == nullptr) *event = new EventHandle();
  auto& s = state_of(stream);
  merge(s.clock, g_host_clock);
  // A fresh state: a wait enqueued earlier keeps the record it was given.
  auto e = std::make_shared<EventState>();
  e->actor = s.actor;
  e->seq = s.enqueued;
  e->clock = s.clock;
  static_cast<EventHandle*>(*event)->state = std::move(e);
}

void block_on_event(void* event, const c10::Stream& stream) {
  if (event == nullptr) return;  // never recorded: nothing to wait for
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  const auto e = static_cast<EventHandle*>(event)->state;
  if (e->actor < 0) return;
  auto& s = state_of(stream);
  merge(s.clock, g_host_clock);
  merge(s.clock, e->clock);
  Item item;
  item.seq = ++s.enqueued;
  tick(s.clock, s.actor, item.seq);
  item.work.name = "wait for an event";
  item.wait_actor = e->actor;
  item.wait_seq = e->seq;
  s.queue.push_back(std::move(item));
}

bool query_event(void* event) {
  if (event == nullptr) return true;
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  const auto e = static_cast<EventHandle*>(event)->state;
  if (e->actor < 0) return true;
  if (g_done[static_cast<size_t>(e->actor)].load() < e->seq) {
    // Time passes while the host polls: one item toward the event.
    auto& s = *g_actors[static_cast<size_t>(e->actor)];
    if (may_run(s)) {
      run_head(s);
    } else if (!s.queue.empty()) {
      run_actor_through(s.queue.front().wait_actor, s.queue.front().wait_seq);
    }
  }
  raise_async_error();
  if (g_done[static_cast<size_t>(e->actor)].load() < e->seq) return false;
  host_observes(e->clock);
  return true;
}

void synchronize_event(void* event) {
  if (event == nullptr) return;
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  const auto e = static_cast<EventHandle*>(event)->state;
  if (e->actor < 0) return;
  run_actor_through(e->actor, e->seq);
  host_observes(e->clock);
  raise_async_error();
}

void destroy_event(void* event) { delete static_cast<EventHandle*>(event); }

void record_data_on_stream(const void* data, const c10::Stream& stream) {
  overlap_begins();
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  auto& s = state_of(stream);
  static const Name record_stream = intern("record_stream");
  note_use(Span{reinterpret_cast<uintptr_t>(data), reinterpret_cast<uintptr_t>(data) + 1, false}, s.actor,
           s.enqueued, record_stream, s.label);
  mark_recorded(data, s.actor);
}

uint8_t poison_byte() { return g_poison.load(); }
void count_poisoned() { g_poisoned.fetch_add(1); }
void count_host_wait() { g_host_waits.fetch_add(1); }
void count_at_call() { g_at_call.fetch_add(1); }

void host_access(const Span& span, const std::string& op) {
  const auto site = current_site();  // before the lock, as in submit()
  const auto name = intern(op);
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  tick(g_host_clock, kHost, ++g_host_seq);
  check_access(Access{kHost, g_host_seq, span, name, site}, g_host_clock);
}

bool in_device_work() { return tls_in_work; }

uint64_t current_session() { return tls_session; }

// Note [Ops at their call while nothing overlaps]
// Queueing an op opens a window only where other work can overlap it: a
// second stream, an event the host polls or waits on, pinned memory a copy
// lands in later, record_stream. Until a session's code does one of those,
// every op is on the default stream of its device and the host waits for
// each result it reads, so an op run at its call is one of the
// interleavings the scheduler draws, and no other would show anything else:
// the race detector judges its accesses as it judges a queued op's (Note
// [Race detector]), and its results are blocks of the registry (freed later
// under a stream, they are tracked). Such an op skips what queueing costs
// (its meta kernel, the staged arguments, a copy of each result), which was
// most of the asynchronous device's cost on small ops. The first call that
// makes overlap possible queues from then on; nothing is queued then, which
// is a state every interleaving passes through. (An error an op's kernel
// raises then comes at its call, as on the synchronous device, not at the
// next sync as a queued op's does.)
bool runs_at_call() { return !g_overlapping.load(std::memory_order_relaxed); }

void overlap_begins() { g_overlapping.store(true, std::memory_order_relaxed); }

void drain_all() {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  for (size_t a = 1; a < g_actors.size(); ++a) {
    auto& s = *g_actors[a];
    run_actor_through(s.actor, s.enqueued);
    host_observes(s.clock);
  }
  raise_async_error();
}

uint64_t begin_session(uint64_t seed, bool lazy) {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  // Concurrent sessions share the interleaving of the first.
  if (g_sessions++ == 0) {
    g_rng.seed(seed);
    g_lazy = lazy;
    g_overlapping.store(false);
    g_poison.store(seed % 2 == 0 ? 0xBE : 0x5A);
    g_async_error.clear();
  }
  tls_session = g_next_session++;
  return tls_session;
}

void end_session() {
  const std::lock_guard<std::recursive_mutex> lock(g_sched);
  try {
    drain_all();
  } catch (...) {
    --g_sessions;
    tls_session = 0;
    throw;
  }
  --g_sessions;
  tls_session = 0;
}

async::Counters counters() {
  return {g_enqueued.load(), g_host_waits.load(), g_poisoned.load(), g_at_call.load()};
}

}  // namespace devparity::vdev::runtime
