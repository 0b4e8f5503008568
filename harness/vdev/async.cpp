// The asynchronous mode's public face (vdev/async.h) over the runtime.
#include "harness/vdev/async.h"

#include "harness/vdev/runtime.h"

#include <fmt/format.h>

#include <atomic>

namespace devparity::vdev::async {
namespace {

std::string side(const Race::Side& s) {
  auto out = fmt::format("{} ({}) on {}", s.op, s.write ? "write" : "read", s.stream);
  if (!s.site.empty()) out += " at " + s.site;
  return out;
}

}  // namespace

void drain_all() { runtime::drain_all(); }

std::string Race::describe() const {
  if (freed && memory.rfind("pinned", 0) == 0) {
    return fmt::format("{} dropped on the host while {} was still queued: a pinned pool that does not track "
                       "copies (eager pinned release) hands it to its next user at once",
                       memory, side(earlier));
  }
  if (freed) {
    return fmt::format("{} freed on the host while {} was still queued, and its stream was not given to "
                       "record_stream: the caching allocator may hand the block to the next allocation",
                       memory, side(earlier));
  }
  return fmt::format("{} and {} touch the same {} with no event, wait or synchronize ordering them",
                     side(earlier), side(later), memory);
}

Session::Session(uint64_t seed, Schedule schedule)
    : seed_(seed), id_(runtime::begin_session(seed, schedule == Schedule::kLazy)) {}

Session::~Session() {
  if (finished_) return;
  try {
    finish();
  } catch (...) {
  }
}

std::vector<Race> Session::finish() {
  if (finished_) return {};
  finished_ = true;
  try {
    runtime::end_session();
  } catch (...) {
    runtime::take_races(id_);
    throw;
  }
  return runtime::take_races(id_);
}

uint8_t Session::poison() const { return runtime::poison_byte(); }

void host_reads(const at::Tensor& host) {
  if (!host.defined() || !host.has_storage() || !host.device().is_cpu()) return;
  if (!runtime::is_registered(reinterpret_cast<uintptr_t>(host.storage().data_ptr().get()), /*pinned=*/true)) return;
  runtime::host_access(runtime::span_of(host, /*write=*/false), "host read of pinned memory");
}

void synchronize_device(c10::DeviceIndex index) { runtime::synchronize_device(index); }

at::Tensor pinned_empty(at::IntArrayRef sizes, at::ScalarType dtype) { return runtime::pinned_tensor(sizes, dtype); }

bool is_pinned(const void* p) { return runtime::is_registered(reinterpret_cast<uintptr_t>(p), /*pinned=*/true); }

void set_site_provider(SiteProvider provider) { runtime::set_site_provider_fn(provider); }

void set_pending_error_reset(PendingErrorReset reset) { runtime::set_pending_error_reset_fn(reset); }

Counters counters() { return runtime::counters(); }

}  // namespace devparity::vdev::async
