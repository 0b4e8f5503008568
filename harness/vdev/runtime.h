#pragma once
// The asynchronous virtual device's runtime, shared by the backend's files
// (Note [Asynchronous virtual device] in vdev/async.h): streams and their
// scheduler (vdev/streams.cpp), the memory registry (vdev/memory.cpp) and
// the race detector (vdev/races.cpp).

#include "harness/vdev/async.h"

#include <c10/core/Allocator.h>
#include <c10/core/Stream.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace devparity::vdev::runtime {

/// A name kept for the life of the process: an op's, a stream's, a source line's
/// (Note [Names the detector keeps], vdev/races.cpp).
using Name = const std::string*;
Name intern(const std::string& text);

/// An actor of the race detector: 0 is the host, then one per stream.
using Actor = int;
constexpr Actor kHost = 0;
using Clock = std::vector<uint64_t>;  // by actor

/// A byte span of one access, and whether it writes.
struct Span {
  uintptr_t lo = 0, hi = 0;  // [lo, hi)
  bool write = false;
};
/// The bytes a tensor's view can touch.
Span span_of(const at::Tensor& t, bool write);

// ---- streams (vdev/streams.cpp) -------------------------------------------

/// The stream new work of `device` goes on, on this thread.
c10::Stream current_stream(c10::DeviceIndex device);
void set_current_stream(const c10::Stream& stream);
c10::Stream pool_stream(c10::DeviceIndex device);
c10::Stream new_stream(c10::DeviceIndex device);

/// A unit of work on a stream: runs on the worker thread.
struct Work {
  std::string name;             // the op, for findings and errors
  std::function<void()> run;    // empty for markers
  std::vector<Span> device;     // vdev spans it reads or writes
  std::vector<Span> host;       // pinned host spans it reads or writes
};

/// Enqueues `work` on `stream` (accesses judged now); returns its sequence
/// number on the stream. May run queued work (the interleaving).
uint64_t submit(const c10::Stream& stream, Work work);
/// Runs `stream`'s work up to and including `seq`, and what it waits on.
void run_through(const c10::Stream& stream, uint64_t seq);
/// The host waits for everything queued on `stream` so far.
void synchronize_stream(const c10::Stream& stream);
void synchronize_device(c10::DeviceIndex device);
bool stream_idle(const c10::Stream& stream);

/// Events (the guard's void* handles).
void record_event(void** event, const c10::Stream& stream);
void block_on_event(void* event, const c10::Stream& stream);
bool query_event(void* event);  // polling lets the event's stream advance
void synchronize_event(void* event);
void destroy_event(void* event);

/// record_stream: `data`'s block is in use on `stream` until the work
/// queued there now is done.
void record_data_on_stream(const void* data, const c10::Stream& stream);

/// The host reads or writes pinned memory (a declared read, a CPU op).
void host_access(const Span& span, const std::string& op);
/// True while this thread runs queued work (the device's, not the host's).
bool in_device_work();
/// Runs every queued item of every stream; the host sees all of it.
void drain_all();
/// Note [Ops at their call while nothing overlaps]: whether an op may run at
/// its call (nothing queued can overlap it), and the calls that end that for
/// the session: a stream other than a default one made current, an event
/// recorded, record_stream, pinned memory, a non-blocking copy.
bool runs_at_call();
void overlap_begins();
/// Sessions (async::Session): the first seeds the interleaving and says
/// whether work runs only when a sync needs it (`lazy`).
uint64_t begin_session(uint64_t seed, bool lazy);
void end_session();
/// This thread's session id, 0 outside one.
uint64_t current_session();
async::Counters counters();

/// The byte unwritten and freed-early memory holds.
uint8_t poison_byte();
void count_poisoned();
void count_host_wait();
void count_at_call();

/// The actor of a stream, its progress and clock (for the memory registry).
Actor actor_of(const c10::Stream& stream);
std::string actor_label(Actor actor);
/// Whether `allocated_on`, as the host frees a block now, has seen `actor`'s
/// work up to `seq` (Note [Stream-ordered release]).
bool seen_at_free(Actor allocated_on, Actor actor, uint64_t seq);
uint64_t actor_done(Actor actor);
/// How much work has been queued on `actor` so far.
uint64_t actor_enqueued(Actor actor);

// ---- memory (vdev/memory.cpp) ---------------------------------------------

/// A block handed out by the vdev or pinned allocator.
void register_block(void* base, size_t bytes, bool pinned, Actor allocated_on);
/// A use of the block holding `span` by `actor` up to its work `seq` (`op`
/// on `stream`, for the finding a free too early makes).
void note_use(const Span& span, Actor actor, uint64_t seq, Name op, Name stream);
/// The allocator's free: releases now, or when the streams using the block
/// are past this point (poisoned first when one was not allowed to be).
void release_block(void* base);
/// record_stream's mark: freeing the block waits for `actor` without poison.
void mark_recorded(const void* data, Actor actor);
/// Releases deferred blocks no stream still uses.
void reap();
/// "vdev memory (4096 bytes)" for the block holding `p`; empty when unknown.
std::string describe_memory(uintptr_t p, bool* pinned = nullptr);
bool is_registered(uintptr_t p, bool pinned);
/// The base of the registered block holding `p`; `p` itself when none does.
uintptr_t block_base(uintptr_t p);
/// Pinned host memory (the platform's pinned allocator wraps these).
c10::DataPtr allocate_pinned(size_t bytes);
void free_pinned(void* p);
at::Tensor pinned_tensor(at::IntArrayRef sizes, at::ScalarType dtype);

// ---- races (vdev/races.cpp) -----------------------------------------------

struct Access {
  Actor actor = kHost;
  uint64_t seq = 0;  // the actor's clock component at the access
  Span span;
  Name op, site;
};
/// Judges `access` against earlier ones by other actors, with `clock` the
/// accessing actor's clock; records it. `freed`: the access is a free.
void check_access(Access access, const Clock& clock, bool freed = false);
/// Records a race found outside check_access (a free too early).
void add_race(async::Race race);
/// The op name of an allocation's access.
inline constexpr const char* kAllocation = "allocation";
/// Note [Allocation is an access]: a vdev block handed out while `actor`
/// is the current stream is ordered after that stream's work up to `seq`
/// (the caching allocator may have just taken it back from that work); a
/// use by another stream that has not seen that point races, as a write.
void note_allocation(uintptr_t base, size_t bytes, Actor actor, uint64_t seq, Name site);
/// Forgets the accesses of the block at `base` (released).
void forget_accesses(uintptr_t base);
/// The races found by `session`'s thread, and those found off any session.
std::vector<async::Race> take_races(uint64_t session);
void drop_all_races();
/// The site of the current op on this thread (the provider's answer).
Name current_site();
void set_site_provider_fn(async::SiteProvider provider);
/// async::set_pending_error_reset's hook (vdev/async_ops.cpp).
void set_pending_error_reset_fn(async::PendingErrorReset reset);

}  // namespace devparity::vdev::runtime
