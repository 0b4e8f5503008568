#pragma once
/// The virtual device's asynchronous mode (`devparity run --vdev-async`):
/// vdev streams that really run later, events, non-blocking copies, pinned
/// host memory and a race detector, so that ordering bugs show without a GPU.
///
/// Note [Asynchronous virtual device]
/// Each vdev stream is a queue. An op on a vdev tensor is judged (devices,
/// shapes: its meta kernel gives the outputs' sizes and dtypes) when it is
/// called, and its kernel is enqueued on the current stream of its device; a
/// worker thread runs queued kernels later, in an interleaving drawn from
/// the session's seed. Only the synchronisation points order work: event
/// record/block/query/synchronize, stream and device synchronize, blocking
/// copies to the host, ops whose result the host needs (item(), nonzero).
/// An op without a meta kernel (convolution, most ops on 1.13) runs when its
/// stream reaches it, the host waiting for that stream: a sync CUDA would not
/// have, which the race detector does not count as one.
///
/// A non-blocking copy into pinned host memory lands when its stream reaches
/// it; until then the buffer holds the session's poison byte. A vdev block
/// freed while a stream other than its allocation stream still has work on
/// it, and that stream was not given to record_stream, is poisoned, as the
/// caching allocator would hand it to the next allocation.
///
/// Note [Eager pinned release]
/// PyTorch's pinned pool (CachingHostAllocator) records the streams a
/// block's copies were queued on and reuses it only after they ran, so a
/// pinned tensor dropped while its non-blocking copy is pending is safe
/// there, and silent here by default. Other pools (a library's own staging
/// ring, cudaFreeHost on drop, older PyTorch paths) reuse the block at once:
/// in the eager mode a pinned block dropped while a copy the host has not
/// waited for still uses it is poisoned at the drop and reported (the copy
/// then reads the poison); its memory itself outlives the copy.
///
/// Note [Race detector]
/// PyTorch's CUDA stream sanitizer's algorithm: every stream and the host
/// keep a vector clock; an event carries its stream's clock at record; a
/// block, a wait or a host sync merges clocks. Each access (a kernel's reads
/// and writes, a copy, a host read of pinned memory, a free) is checked, by
/// byte span, against earlier accesses of other streams it does not happen
/// after; a pair with a write is an unsynchronized access. Accesses are
/// judged when enqueued, so the finding does not depend on the interleaving.
/// The host's raw reads of a pinned buffer are seen where the code declares
/// them (host_reads()) and where a CPU op reads or writes the buffer.
///
/// Not modelled: timing, real concurrency of kernels, CUDA graphs, stream
/// priorities, inter-process memory.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <string>
#include <vector>

namespace devparity::vdev::async {

/// Whether new vdev work is asynchronous (vdev's mode: vdev/mode.h; the
/// runner and the Python front turn it on by default).
bool enabled();
/// Runs the work queued on every stream (leaving asynchronous mode).
void drain_all();

/// When pinned host memory is released (Note [Eager pinned release]).
enum class PinnedRelease {
  kPooled,  ///< after the copies queued from or into it, as PyTorch's pinned pool does (the default)
  kEager,   ///< at once, poisoned: pools that do not track copies
};
/// The release vdev's mode asks for (vdev/mode.h).
PinnedRelease pinned_release();
/// "pooled" or "eager"; anything else throws std::invalid_argument naming `option`.
PinnedRelease parse_pinned_release(const std::string& name, const std::string& option);
const char* pinned_release_name(PinnedRelease release);

/// One unsynchronized access: two accesses of the same bytes, at least one
/// a write, on two streams (or a stream and the host) with nothing ordering them.
struct Race {
  struct Side {
    std::string op;      ///< "aten::add.Tensor", "copy to pinned host memory", "host read"
    std::string stream;  ///< "vdev:0 stream 3", "vdev:1 default stream", "host"
    std::string site;    ///< scopes and source line, where known
    bool write = false;
  };
  Side earlier, later;
  std::string memory;  ///< "vdev:0 memory (4096 bytes)", "pinned host memory (...)"
  bool freed = false;  ///< the later access is the block's free
  std::string describe() const;
};

/// How queued work is drawn to run between synchronisation points.
enum class Schedule {
  kDrawn,  ///< after each submit, 0 to 3 queue heads drawn from the seed (Note [Scheduler])
  kLazy,   ///< only what a synchronisation point needs: every ordering bug's window held open
};

/// One trial's use of the asynchronous device: seeds the interleaving,
/// collects the races its thread's work causes, and at finish() drains every
/// stream. Sessions on several threads at once share one interleaving.
class Session {
 public:
  /// `seed` draws the interleaving; the poison byte alternates with its
  /// parity (Note [Asynchronous virtual device]).
  explicit Session(uint64_t seed, Schedule schedule = Schedule::kDrawn);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Waits for all work, then returns the races found; at most once.
  std::vector<Race> finish();
  uint64_t seed() const { return seed_; }
  /// The byte unwritten pinned memory and freed-early blocks hold.
  uint8_t poison() const;

 private:
  uint64_t seed_;
  uint64_t id_ = 0;
  bool finished_ = false;
};

/// The host is about to read `host`'s bytes directly (a raw pointer, no
/// op): checked against pending copies into it (Note [Race detector]).
void host_reads(const at::Tensor& host);

/// The host waits for every stream of vdev:`index` (torch.vdev.synchronize,
/// and 1.13, whose device guard has no synchronizeDevice).
void synchronize_device(c10::DeviceIndex index);

/// Pinned host memory for copies with vdev (CPU tensor).
at::Tensor pinned_empty(at::IntArrayRef sizes, at::ScalarType dtype);
bool is_pinned(const void* p);

/// Where an access happened ("scope > scope at file.py:12"), asked of the
/// layer that knows (the tracer) on the thread that enqueues the work.
using SiteProvider = std::string (*)();
void set_site_provider(SiteProvider provider);

/// What a failed meta kernel may leave pending in an embedding interpreter:
/// torch throws a C++ exception over a Python meta kernel's error and leaves
/// Python's error indicator set, which the next Python call then reports as
/// a SystemError. The front end that embeds one installs its reset; it is
/// called after every meta kernel that failed (the op then runs on the host).
using PendingErrorReset = void (*)();
void set_pending_error_reset(PendingErrorReset reset);

/// Counts since the process started, for reports and benchmarks.
struct Counters {
  int64_t enqueued = 0;      ///< kernels and copies queued on streams
  int64_t host_waits = 0;    ///< ops without a meta kernel, run when their stream reached them
  int64_t poisoned = 0;      ///< buffers filled with the poison byte
  int64_t at_call = 0;       ///< ops run at their call (Note [Ops at their call while nothing overlaps])
};
Counters counters();

}  // namespace devparity::vdev::async
