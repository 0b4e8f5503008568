#pragma once
/// Named trace scopes: a transform marks its sub-steps so that placement
/// findings read like "jpeg > subsample > blur > gaussian_kernel: aten::arange
/// with no device". Free when no tracer is active (the RecordFunction is
/// inactive and records nothing).

#include <ATen/record_function.h>

namespace devparity {

/// Marks the enclosing C++ scope as a named step while it lives.
class TraceScope {
 public:
  /// `name` must outlive the scope (a string literal).
  explicit TraceScope(const char* name) : guard_(at::RecordScope::USER_SCOPE) {
    if (guard_.isActive()) guard_.before(name, c10::ArrayRef<const c10::IValue>{});
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  at::RecordFunction guard_;
};

}  // namespace devparity

#define DEVPARITY_TRACE_SCOPE_CONCAT_INNER(a, b) a##b
#define DEVPARITY_TRACE_SCOPE_CONCAT(a, b) DEVPARITY_TRACE_SCOPE_CONCAT_INNER(a, b)
/// DEVPARITY_TRACE_SCOPE("blur"): names the rest of the enclosing block.
#define DEVPARITY_TRACE_SCOPE(name) \
  ::devparity::TraceScope DEVPARITY_TRACE_SCOPE_CONCAT(devparity_trace_scope_, __LINE__)(name)

namespace devparity {
/// The scope name DEVPARITY_HOST_HANDOVER uses.
constexpr const char* kHostHandoverScope = "host_handover";
}  // namespace devparity

/// DEVPARITY_HOST_HANDOVER(): the rest of the block moves data between the
/// device and the host on purpose (a JPEG encoder's entropy coding runs on
/// the host). Its host_sync and host_to_device_copy findings, and host
/// buffers made with an explicit CPU device, become notes; every other
/// finding (a device-less factory included) is judged as usual. Say why in a
/// comment beside it.
#define DEVPARITY_HOST_HANDOVER() DEVPARITY_TRACE_SCOPE(::devparity::kHostHandoverScope)
