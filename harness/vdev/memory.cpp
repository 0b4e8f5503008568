// The asynchronous virtual device's memory: every block the vdev and pinned
// allocators hand out, the streams that use it, and when it may really be
// released (Note [Asynchronous virtual device] in vdev/async.h).
//
// Note [Stream-ordered release]
// LibTorch's CUDA caching allocator hands a freed block to the next
// allocation on the stream it was allocated on at once: work queued there
// comes first anyway. Work on another stream is waited for only when the
// block was given to record_stream. So a block freed while another stream
// has work on it, unrecorded, may be overwritten under that work; here it
// is filled with the poison byte, reported as a race, and really released
// when no stream still uses it. Pinned host memory comes from LibTorch's
// caching host allocator, which records the copies made with it: freeing it
// early is safe, and only waits.

#include "harness/vdev/runtime.h"

#include "harness/vdev/platform.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/EmptyTensor.h>
#include <ATen/record_function.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

namespace devparity::vdev::runtime {
namespace {

struct Use {
  Actor actor;
  uint64_t seq;
  Name op, stream;
};

struct Block {
  uintptr_t base = 0;
  size_t bytes = 0;
  bool pinned = false;
  Actor allocated_on = kHost;
  std::vector<Use> uses;  // the last by each actor
  std::vector<Actor> recorded;
  bool freed = false;
};

std::mutex g_mem;
std::map<uintptr_t, Block> g_blocks;
// The blocks freed while work on them was queued: all reap() has to look at. (Scanning g_blocks
// after every item was quadratic where autograd keeps ~10^5 small blocks alive: torchvision's
// TestDeformConv did not finish in 15 minutes.)
std::set<uintptr_t> g_freed;
int g_live_pinned = 0;
std::optional<at::CallbackHandle> g_observer;

Block* block_at(uintptr_t p) {
  auto it = g_blocks.upper_bound(p);
  if (it == g_blocks.begin()) return nullptr;
  --it;
  Block& b = it->second;
  return p >= b.base && p < b.base + std::max<size_t>(b.bytes, 1) ? &b : nullptr;
}

bool pending(const Use& u) { return actor_done(u.actor) < u.seq; }

std::string what(const Block& b) {
  return (b.pinned ? std::string("pinned host memory (") : std::string("vdev memory (")) +
         std::to_string(b.bytes) + " bytes)";
}

// Note [Race detector]: a CPU op touching pinned memory is a host access;
// ops with a vdev tensor are the device's (copies), judged as stream work.
std::unique_ptr<at::ObserverContext> observe_cpu_op(const at::RecordFunction& fn) {
  if (in_device_work()) return nullptr;
  const auto name = fn.operator_name();
  if (!name) return nullptr;
  const auto inputs = fn.inputs();
  for (const auto& v : inputs) {
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().device().type() == c10::DeviceType::PrivateUse1) {
      return nullptr;
    }
  }
  const auto handle = c10::Dispatcher::singleton().findSchema(*name);
  size_t i = 0;
  for (const auto& v : inputs) {
    const size_t index = i++;
    if (!v.isTensor()) continue;
    const auto& t = v.toTensor();
    if (!t.defined() || !t.has_storage() || !t.device().is_cpu()) continue;
    const auto p = reinterpret_cast<uintptr_t>(t.storage().data_ptr().get());
    if (!is_registered(p, true)) continue;
    bool writes = false;
    if (handle && index < handle->schema().arguments().size()) {
      const auto* alias = handle->schema().arguments()[index].alias_info();
      writes = alias != nullptr && alias->isWrite();
    }
    host_access(span_of(t, writes), std::string(fn.name()) + (writes ? " (host write)" : " (host read)"));
  }
  return nullptr;
}

void free_now(const Block& b) {
  forget_accesses(b.base);
  c10::free_cpu(reinterpret_cast<void*>(b.base));
}

}  // namespace

void free_pinned(void* p) { release_block(p); }

c10::DataPtr allocate_pinned(size_t bytes) {
  overlap_begins();  // copies land in it later (Note [Ops at their call while nothing overlaps])
  void* p = bytes != 0 ? c10::alloc_cpu(bytes) : nullptr;
  if (p != nullptr) register_block(p, bytes, true, kHost);
  return {p, p, &free_pinned, c10::Device(c10::DeviceType::CPU)};
}

Span span_of(const at::Tensor& t, bool write) {
  Span s;
  s.write = write;
  if (!t.defined() || !t.has_storage() || t.numel() == 0) return s;
  const auto item = static_cast<int64_t>(t.element_size());
  int64_t low = 0, high = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t reach = (t.size(d) - 1) * t.stride(d) * item;
    (reach < 0 ? low : high) += reach;
  }
  const auto start = reinterpret_cast<uintptr_t>(t.storage().data_ptr().get()) +
                     static_cast<uintptr_t>(t.storage_offset() * item);
  s.lo = start + static_cast<uintptr_t>(low);  // low <= 0
  s.hi = start + static_cast<uintptr_t>(high + item);
  return s;
}

void register_block(void* base, size_t bytes, bool pinned, Actor allocated_on) {
  {
    const std::lock_guard<std::mutex> lock(g_mem);
    Block b;
    b.base = reinterpret_cast<uintptr_t>(base);
    b.bytes = bytes;
    b.pinned = pinned;
    b.allocated_on = allocated_on;
    g_blocks[b.base] = std::move(b);
    if (pinned && g_live_pinned++ == 0 && async::enabled()) {
      g_observer = at::addGlobalCallback(at::RecordFunctionCallback(&observe_cpu_op).needsInputs(true).scopes(
          {at::RecordScope::FUNCTION}));
    }
  }
  if (!pinned && allocated_on != kHost && async::enabled()) {
    note_allocation(reinterpret_cast<uintptr_t>(base), bytes, allocated_on, actor_enqueued(allocated_on),
                    current_site());
  }
}

void note_use(const Span& span, Actor actor, uint64_t seq, Name op, Name stream) {
  if (span.hi == span.lo) return;
  const std::lock_guard<std::mutex> lock(g_mem);
  Block* b = block_at(span.lo);
  if (b == nullptr) return;
  for (auto& u : b->uses) {
    if (u.actor == actor) {
      u = Use{actor, seq, op, stream};
      return;
    }
  }
  b->uses.push_back(Use{actor, seq, op, stream});
}

void mark_recorded(const void* data, Actor actor) {
  const std::lock_guard<std::mutex> lock(g_mem);
  if (Block* b = block_at(reinterpret_cast<uintptr_t>(data))) b->recorded.push_back(actor);
}

void release_block(void* base) {
  if (base == nullptr) return;
  Block copy;
  {
    const std::lock_guard<std::mutex> lock(g_mem);
    const auto it = g_blocks.find(reinterpret_cast<uintptr_t>(base));
    if (it != g_blocks.end()) copy = it->second;
  }
  if (copy.base == 0) {
    c10::free_cpu(base);
    return;
  }
  // Note [Stream-ordered release]: a use the allocation stream has not seen
  // (through events, or the host's syncs) at the free, on a stream not given
  // to record_stream, may meet the block's next owner.
  // Note [Eager pinned release]: a pinned block is the host's, so any copy
  // the host has not waited for is early there.
  const bool judged = copy.pinned ? async::pinned_release() == async::PinnedRelease::kEager : true;
  const Use* early = nullptr;
  if (judged && !in_device_work()) {
    for (const auto& u : copy.uses) {
      const bool recorded = std::find(copy.recorded.begin(), copy.recorded.end(), u.actor) != copy.recorded.end();
      if (u.actor != copy.allocated_on && !recorded && !seen_at_free(copy.allocated_on, u.actor, u.seq)) {
        early = &u;
        break;
      }
    }
  }
  std::unique_lock<std::mutex> lock(g_mem);
  const auto it = g_blocks.find(copy.base);
  Block& b = it->second;
  if (b.pinned && --g_live_pinned == 0 && g_observer) {
    at::removeCallback(*g_observer);
    g_observer.reset();
  }
  const bool busy = std::any_of(b.uses.begin(), b.uses.end(), pending);
  if (!busy) {
    const Block gone = b;
    g_blocks.erase(it);
    lock.unlock();
    free_now(gone);
  } else {
    b.freed = true;
    g_freed.insert(b.base);
    if (early != nullptr && pending(*early)) {
      std::memset(reinterpret_cast<void*>(b.base), poison_byte(), b.bytes);
      count_poisoned();
    }
    lock.unlock();
  }
  if (early != nullptr) {
    async::Race r;
    r.earlier = {*early->op, *early->stream, "", true};
    r.later = {"free (the tensor's last reference dropped)", "host", *current_site(), true};
    r.memory = what(copy);
    r.freed = true;
    add_race(std::move(r));
  }
}

void reap() {
  std::vector<Block> gone;
  {
    const std::lock_guard<std::mutex> lock(g_mem);
    for (auto it = g_freed.begin(); it != g_freed.end();) {
      const auto block = g_blocks.find(*it);
      if (block == g_blocks.end()) {
        it = g_freed.erase(it);
      } else if (std::none_of(block->second.uses.begin(), block->second.uses.end(), pending)) {
        gone.push_back(block->second);
        g_blocks.erase(block);
        it = g_freed.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& b : gone) free_now(b);
}

std::string describe_memory(uintptr_t p, bool* pinned) {
  const std::lock_guard<std::mutex> lock(g_mem);
  const Block* b = block_at(p);
  if (b == nullptr) return std::string();
  if (pinned != nullptr) *pinned = b->pinned;
  return what(*b);
}

uintptr_t block_base(uintptr_t p) {
  const std::lock_guard<std::mutex> lock(g_mem);
  const Block* b = block_at(p);
  return b == nullptr ? p : b->base;
}

bool is_registered(uintptr_t p, bool pinned) {
  const std::lock_guard<std::mutex> lock(g_mem);
  const Block* b = block_at(p);
  return b != nullptr && b->pinned == pinned;
}

at::Tensor pinned_tensor(at::IntArrayRef sizes, at::ScalarType dtype) {
  return at::detail::empty_generic(sizes, platform::pinned_allocator(), c10::DispatchKeySet(c10::DispatchKey::CPU),
                                   dtype, c10::nullopt);
}

}  // namespace devparity::vdev::runtime
