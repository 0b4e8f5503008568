// Seeded stream-ordering faults, each with its clean twin, written against
// LibTorch's device-generic stream and event interface so that they run the
// same on CUDA and on the asynchronous vdev (--vdev-async), where they are
// caught without a GPU (Note [Asynchronous virtual device]):
//  - stream_event_before_copy: a JPEG encoder records its hand-over event
//    before the non-blocking copy of the coefficients into pinned memory, so
//    the host codes the buffer before the bytes land (pytorch/vision#8587)
//    -> the race detector (host read vs the copy) and, where the copy had
//    not run, noise.
//  - stream_pool_no_wait: work on a pool stream reads what the caller's
//    stream made, without waiting for it -> race, wrong values sometimes.
//  - stream_pinned_reuse: a pinned staging buffer is handed back to its pool
//    (and written by its next user) while the non-blocking copy from it is
//    pending -> race (host write vs the copy's read), wrong offsets sometimes.
//  - stream_default_reads_transfer: a transfer stream copies the input; the
//    caller's stream consumes the copy without waiting for it -> race.
//  - stream_undeclared_host_read: the result is copied into a persistent
//    pinned staging buffer and read back with memcpy, without waiting for
//    the copy. No op touches the buffer on the host, so the race detector
//    cannot see the read; an interleaving sweep (--interleavings) sees the
//    poison byte in some interleavings and not in others
//    (Note [Interleaving sweep]).
//  - stream_write_before_allocation_ready: a decoder allocates its output
//    on the caller's stream and writes it on a pool stream without waiting
//    for the caller's (pytorch/vision#9606): the caching allocator may hand
//    it memory the caller's pending work still uses -> race, the allocation
//    against the pool's write (Note [Allocation is an access]).
//  - stream_pinned_source_dropped: a pinned source goes out of scope while
//    the non-blocking copy from it is pending (pytorch/pytorch#130785):
//    PyTorch's own pinned pool waits for the copy, so this is silent in the
//    default mode; under eager pinned release (pools that do not track
//    copies) -> race, and the copy reads poison.
// The clean twins order the same work with events, and call record_stream
// for memory that a stream other than its allocation stream uses, as
// LibTorch's caching allocator requires. On devices without streams (cpu,
// meta) both twins run the same ops in program order.

#include "harness/device/device.h"
#include "harness/subject/register.h"
#include "harness/trace/scope.h"
#include "harness/transforms/codec/jpeg_encode.h"
#include "tests/faults/fault_util.h"

#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <cstring>
#include <mutex>
#include <thread>

namespace devparity::faults {
namespace {

bool has_streams(const c10::Device& d) {
  return d.type() == c10::DeviceType::CUDA || d.type() == c10::DeviceType::PrivateUse1;
}

// The host waits for `event` (1.13's c10::Event has no synchronize).
void wait_for(const c10::Event& event) {
  while (!event.query()) std::this_thread::yield();
}

// The host waits for the work queued so far on `device`'s current stream.
void wait_for_current_stream(const c10::Device& device) {
  const c10::impl::VirtualGuardImpl impl(device.type());
  c10::Event copied(device.type());
  copied.record(impl.getStream(device));
  wait_for(copied);
}

// Per-channel offsets made on the host and copied to x's device through the
// pinned `stage`, without waiting for the copy.
at::Tensor staged_offsets(const at::Tensor& x, at::Tensor& stage) {
  const int64_t channels = x.size(1);
  const auto offsets = at::arange(1, channels + 1, at::TensorOptions().dtype(x.scalar_type())) * 0.125;
  stage = pinned_empty({channels}, x.scalar_type(), x.device().type());
  stage.copy_(offsets);
  auto on_device = at::empty({channels}, x.options());
  on_device.copy_(stage, /*non_blocking=*/true);
  return on_device;
}

template <bool kFaulty>
class EventBeforeCopy final : public JpegEncoderBase {
 public:
  EventBeforeCopy() : JpegEncoderBase(twin()) {}

 protected:
  std::vector<uint8_t> encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                  const jpeg::EncoderOptions& options) const override {
    auto q = jpeg::quantize(image, tables.dct, tables.quant, options);
    const auto& src = q.coefficients;
    if (!has_streams(src.device())) return jpeg::entropy_code(q, jpeg::hand_over(src), tables.host_quant, options);
    DEVPARITY_HOST_HANDOVER();  // the coefficients go to the host coder
    const c10::DeviceGuard guard(src.device());
    const c10::impl::VirtualGuardImpl impl(src.device().type());
    auto host = pinned_empty(src.sizes(), src.scalar_type(), src.device().type());
    c10::Event copied(src.device().type());
    if (kFaulty) copied.record(impl.getStream(src.device()));  // before the work it should follow
    host.copy_(src, /*non_blocking=*/true);
    if (!kFaulty) copied.record(impl.getStream(src.device()));
    wait_for(copied);
    return jpeg::entropy_code(q, host, tables.host_quant, options);
  }

 private:
  static TransformInfo twin() {
    auto i = twin_info("stream_event_before_copy", kFaulty,
                       "records the hand-over event before the copy to pinned memory");
    i.family = "faults";
    return i;
  }
};

template <bool kFaulty>
class PoolNoWait final : public Twin<> {
 public:
  PoolNoWait() : Twin("stream_pool_no_wait", kFaulty, "works on a pool stream without waiting for the caller's") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto y = x * 2.0;
    if (!has_streams(x.device())) return y + 1.0;
    const c10::impl::VirtualGuardImpl impl(x.device().type());
    const auto caller = impl.getStream(x.device());
    const auto pool = impl.getStreamFromGlobalPool(x.device());
    at::Tensor z;
    {
      const c10::StreamGuard on_pool(pool);
      if (!kFaulty) {
        c10::Event made(x.device().type());
        made.record(caller);
        made.block(pool);
      }
      z = y + 1.0;
    }
    c10::Event done(x.device().type());
    done.record(pool);
    done.block(caller);
    impl.recordDataPtrOnStream(z.storage().data_ptr(), caller);  // allocated on the pool, used by the caller
    return z;
  }
};

template <bool kFaulty>
class PinnedReuse final : public Twin<> {
 public:
  PinnedReuse()
      : Twin("stream_pinned_reuse", kFaulty, "hands its pinned staging buffer back while the copy from it is pending") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    at::Tensor stage;
    const auto on_device = staged_offsets(x, stage);
    if (!kFaulty && has_streams(x.device())) wait_for_current_stream(x.device());
    stage.zero_();  // the buffer's next user
    return x + on_device.view({1, x.size(1), 1, 1});
  }
};

template <bool kFaulty>
class DefaultReadsTransfer final : public Twin<> {
 public:
  DefaultReadsTransfer()
      : Twin("stream_default_reads_transfer", kFaulty,
             "consumes a transfer stream's copy on the caller's stream without waiting for it") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    if (!has_streams(x.device())) return x.clone() * 0.5 + 0.25;
    const c10::impl::VirtualGuardImpl impl(x.device().type());
    const auto caller = impl.getStream(x.device());
    const auto transfer = impl.getStreamFromGlobalPool(x.device());
    at::Tensor staged;
    {
      const c10::StreamGuard on_transfer(transfer);
      c10::Event ready(x.device().type());
      ready.record(caller);
      ready.block(transfer);
      staged = at::empty_like(x);
      staged.copy_(x, /*non_blocking=*/true);
    }
    if (!kFaulty) {
      c10::Event copied(x.device().type());
      copied.record(transfer);
      copied.block(caller);
    }
    impl.recordDataPtrOnStream(staged.storage().data_ptr(), caller);  // allocated on the transfer stream
    impl.recordDataPtrOnStream(x.storage().data_ptr(), transfer);     // the caller's input, read there
    return staged * 0.5 + 0.25;
  }
};

template <bool kFaulty>
class UndeclaredHostRead final : public Twin<> {
 public:
  UndeclaredHostRead()
      : Twin("stream_undeclared_host_read", kFaulty,
             "reads its pinned staging buffer with memcpy before the copy into it is known to have landed") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto y = x * 0.5 + 0.25;
    if (!has_streams(x.device())) return y.clone();
    DEVPARITY_HOST_HANDOVER();  // a host round trip by design
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!staging_.defined() || staging_.sizes() != y.sizes() || staging_.scalar_type() != y.scalar_type()) {
      staging_ = pinned_empty(y.sizes(), y.scalar_type(), x.device().type());
    }
    staging_.copy_(y, /*non_blocking=*/true);
    if (!kFaulty) wait_for_current_stream(x.device());
    auto out = at::empty(y.sizes(), y.options().device(at::kCPU));
    std::memcpy(out.data_ptr(), staging_.data_ptr(), out.nbytes());  // a raw read no op sees
    return out.to(x.device());
  }

 private:
  mutable std::mutex mutex_;
  mutable at::Tensor staging_;  // kept between calls, as encoders keep theirs
};

template <bool kFaulty>
class WriteBeforeAllocationReady final : public Twin<> {
 public:
  WriteBeforeAllocationReady()
      : Twin("stream_write_before_allocation_ready", kFaulty,
             "allocates its output on the caller's stream and writes it on a pool stream without waiting") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    const auto encoded = (x * 0.5 + 0.25).to(at::kCPU);  // the host's bytes to decode; the host has seen the caller
    if (!has_streams(x.device())) return encoded.to(x.device());
    const c10::impl::VirtualGuardImpl impl(x.device().type());
    const auto caller = impl.getStream(x.device());
    const auto pool = impl.getStreamFromGlobalPool(x.device());
    { const auto scratch = x * 3.0; }  // the caller's pending work, whose block the allocator takes back
    auto out = at::empty_like(x);      // on the caller's stream
    {
      const c10::StreamGuard on_pool(pool);
      if (!kFaulty) {
        c10::Event allocated(x.device().type());
        allocated.record(caller);
        allocated.block(pool);
      }
      out.copy_(encoded, /*non_blocking=*/true);  // the decode, on the decoder's stream
    }
    c10::Event decoded(x.device().type());
    decoded.record(pool);
    decoded.block(caller);
    impl.recordDataPtrOnStream(out.storage().data_ptr(), pool);
    return out;
  }
};

template <bool kFaulty>
class PinnedSourceDropped final : public Twin<> {
 public:
  PinnedSourceDropped()
      : Twin("stream_pinned_source_dropped", kFaulty,
             "drops its pinned source while the non-blocking copy from it is pending") {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    at::Tensor on_device;
    {
      at::Tensor stage;
      on_device = staged_offsets(x, stage);
      if (!kFaulty && has_streams(x.device())) wait_for_current_stream(x.device());
    }  // the stage's last reference
    return x + on_device.view({1, x.size(1), 1, 1});
  }
};

using FaultEventBeforeCopy = EventBeforeCopy<true>;
using CleanEventBeforeCopy = EventBeforeCopy<false>;
using FaultPoolNoWait = PoolNoWait<true>;
using CleanPoolNoWait = PoolNoWait<false>;
using FaultPinnedReuse = PinnedReuse<true>;
using CleanPinnedReuse = PinnedReuse<false>;
using FaultDefaultReadsTransfer = DefaultReadsTransfer<true>;
using CleanDefaultReadsTransfer = DefaultReadsTransfer<false>;
using FaultWriteBeforeAllocationReady = WriteBeforeAllocationReady<true>;
using CleanWriteBeforeAllocationReady = WriteBeforeAllocationReady<false>;
using FaultPinnedSourceDropped = PinnedSourceDropped<true>;
using CleanPinnedSourceDropped = PinnedSourceDropped<false>;
using FaultUndeclaredHostRead = UndeclaredHostRead<true>;
using CleanUndeclaredHostRead = UndeclaredHostRead<false>;

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultEventBeforeCopy)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanEventBeforeCopy)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultPoolNoWait)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanPoolNoWait)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultPinnedReuse)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanPinnedReuse)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultDefaultReadsTransfer)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanDefaultReadsTransfer)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultUndeclaredHostRead)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanUndeclaredHostRead)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultWriteBeforeAllocationReady)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanWriteBeforeAllocationReady)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::FaultPinnedSourceDropped)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::CleanPinnedSourceDropped)
