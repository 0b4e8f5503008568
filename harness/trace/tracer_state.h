#pragma once
/// The tracer's state and what its callbacks (observer.cpp) and its API
/// (tracer.cpp) share (internal to trace/): per-storage records, per-thread
/// frames of scopes and ops, the active tracer.

#include "harness/trace/finding.h"
#include "harness/trace/forward_lines.h"
#include "harness/trace/op_classification.h"
#include "harness/trace/op_info.h"
#include "harness/trace/provenance.h"
#include "harness/trace/tracer.h"

#include <ATen/core/Tensor.h>
#include <ATen/record_function.h>
#include <c10/core/Device.h>
#include <c10/util/intrusive_ptr.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace devparity {
namespace tracing {

// What the tracer knows of one storage.
struct Record {
  std::optional<c10::weak_intrusive_ptr<c10::StorageImpl>> keep;  // holds the address while the trial lives
  bool host = false;
  bool seeded = false;                             // the subject's input or state
  bool filled = false;                             // host data written with device data (cpu row)
  bool provisional = false;                        // made before the target was known: neutral on the CPU
  // Host data: an op wrote it after it was made, and whether one drew random numbers into it
  // (Note [Parameters the library samples]).
  bool written = false;
  bool drawn = false;
  std::shared_ptr<const Origin> origin;            // host data: how it was made
};

// Records kept before the first sweep for freed storages (Note [Records of freed storages]).
constexpr size_t kFirstSweep = 4096;

enum class Role : uint8_t { kScope, kComposite, kJudged };

struct Frame {
  Role role = Role::kScope;
  // Scopes, and the subject's op for op frames: the RecordFunction's name,
  // which lives until its end callback pops the frame, or the OpInfo's.
  std::string_view name;
  bool hidden = false;    // a bookkeeping record, left out of scope chains
  bool top = false;
  const OpInfo* info = nullptr;
  // For outputs that need a record (ops judged, and composites):
  bool inputs_target = false;                  // any input is device data
  bool inputs_host = false;                    // any input is host data
  bool inputs_neutral = false;                 // any input is neutral (Note [Neutral data])
  std::shared_ptr<const Origin> host_origin;   // the first host input's origin
  std::shared_ptr<const Origin> foreign_origin;  // ... and the first on another accelerator's
  std::optional<op_kinds::Side> move_to;                 // moves: where the result goes
  bool move_from_host = false;
  bool literal = false;                        // a literal's own conversion (Note [Literal sites])
  bool literal_on_host = false;                // ... of a literal written with no device
  std::shared_ptr<const Origin> factory_origin;  // factories: host data they make
  std::optional<op_kinds::Side> factory_side;
  bool user_factory = false;                   // the code's own factory call (or a callee of it)
  // Backward functions (scopes): the forward op's autograd sequence number and thread.
  int64_t forward_seq = -1;
  uint64_t forward_thread = 0;
};

}  // namespace tracing

struct Tracer::State {
  // Which tracer a thread's frames belong to: an address can be reused by the
  // next tracer, and frames left by this one (a scope it never saw end) name
  // RecordFunctions that are gone.
  uint64_t generation = 0;
  c10::Device target{c10::DeviceType::CPU};
  tracing::ForwardLines forward_lines;  // Note [Backward lines]
  bool infer_target = false;  // TraceSeeds::infer_target, until inferred
  bool target_inferred = false;  // TraceSeeds::infer_target, for good
  bool literals_by_line = false;
  bool cpu_means_default = false;
  bool positive = false;  // TraceSeeds::positive_device_data
  bool device_work = false;  // device data exists: marked, or given to an op
  std::set<std::string> factory_sites;
  std::set<std::string> deviceless_sites;
  std::set<std::string> host_sites;
  std::mutex mutex;  // ops may arrive from autograd worker threads too
  FindingSet findings;
  Finding failed;
  int64_t ops = 0;
  int64_t tensors = 0;
  std::vector<DeviceDraw> draws;
  std::unordered_map<const c10::StorageImpl*, tracing::Record> storages;
  size_t sweep_at = tracing::kFirstSweep;  // Note [Records of freed storages]
  // Tensors sent home by code that names the CPU although they are on it
  // (Tracer::mark_host): by tensor, since they share device data's storage.
  std::unordered_map<const c10::TensorImpl*,
                     std::pair<c10::weak_intrusive_ptr<c10::TensorImpl>, std::shared_ptr<const tracing::Origin>>>
      homed;
};

namespace tracing {

// Note [Tracer threads]: the active tracer, process-wide.
extern std::atomic<Tracer::State*> g_active;
extern std::mutex g_active_mutex;  // guards g_active_tracer's lifetime for with_active()
extern Tracer* g_active_tracer;
extern std::atomic<SourceLocator> g_locator;
/// enter_host_handover() minus leave_host_handover() on this thread.
extern thread_local int tls_handover_depth;

/// The callbacks the tracer registers (observer.cpp).
std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn);
void on_end(const at::RecordFunction& fn, at::ObserverContext*);

/// Where the asynchronous vdev's work is enqueued: the scopes and source line
/// of the op this thread is in.
std::string vdev_site();

c10::StorageImpl* storage_of(const at::Tensor& t);
/// What the tracer recorded of a tensor's storage (Note [Recorded storages]).
const Record* record_of(const Tracer::State& s, const at::Tensor& t);
bool is_host_data(const Tracer::State& s, const at::Tensor& t);
/// Neither device nor host data (Note [Neutral data]).
bool is_neutral(const Tracer::State& s, const at::Tensor& t);
void remember(Tracer::State& s, const at::Tensor& t, bool host, std::shared_ptr<const Origin> origin);
/// "aten::arange at ramp.py:12".
std::string where(const std::string& op, const std::string& source);

}  // namespace tracing
}  // namespace devparity
