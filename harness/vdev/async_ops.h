#pragma once
// What the virtual device's kernels do in asynchronous mode (Note
// [Asynchronous virtual device] in vdev/async.h): enqueue their work on the
// current stream instead of running it.

#include "harness/vdev/runtime.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <functional>

namespace devparity::vdev::runtime {

/// A CPU tensor over `t`'s memory that does not keep it alive: queued work
/// holds these, and the memory registry keeps the blocks (Note
/// [Stream-ordered release]).
at::Tensor borrowed(const at::Tensor& t);

/// A tensor shaped as `t` (sizes, strides, offset, dtype, conj and neg bits)
/// over `storage`, with dispatch key `key`: the backend's aliases.
at::Tensor view_like(const at::Tensor& t, c10::Storage storage, c10::DispatchKey key);

/// The boxed fallback's op, judged already, on `device`: its outputs are
/// made now from its meta kernel and its CPU kernel is queued. Without a
/// meta kernel (or when the host needs the result, or it draws random
/// numbers), the host waits for the stream and `run_now` runs it.
void enqueue_op(const c10::OperatorHandle& op, torch::jit::Stack* stack, const c10::Device& device,
                const std::function<void()>& run_now);

/// A vdev tensor a kernel made over CPU memory (the host path), as a tensor
/// over registered vdev memory; registered tensors pass unchanged.
at::Tensor adopt(const at::Tensor& t);

/// The host waits until `stream` reaches a marker with `spans` (an op that
/// runs on the host thread: convolution, ops without a meta kernel).
void host_waits_for(const std::string& name, const c10::Stream& stream, std::vector<Span> spans);

/// copy_ with a vdev tensor on either side, as CUDA orders it.
void enqueue_copy(const at::Tensor& src, const at::Tensor& dst, bool non_blocking);
void enqueue_fill(const at::Tensor& self, const at::Scalar& value);

}  // namespace devparity::vdev::runtime
