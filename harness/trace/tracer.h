#pragma once
/// The tracer: while a Tracer lives, every op dispatched on this thread is
/// observed through a thread-local at::RecordFunction callback and judged
/// against the trial's target device.
///
/// Note [Device data and host data]
/// The tracer knows where each tensor's data came from during a trial:
/// *device data* is the subject's input, its registered state, anything
/// computed from them, and tensors made on the target device; *host data* is
/// made on the host (a factory with no device or with the CPU's), kept
/// outside registered state (an unregistered attribute), or copied back to
/// the host.
/// Host work is not a finding: sampling parameters with `torch.rand(1).item()`
/// on the host is what random transforms do. A finding is where host data
/// meets device data in an op that CUDA would refuse (device_rules.h), where
/// it is returned, and where the host waits for device data. The cpu row
/// judges by the same rule: its device data and host data share the CPU, so
/// the origin, not the device, tells them apart.
///
/// Note [Neutral data]
/// Python code on the cpu row makes CPU tensors outside the trace that an
/// accelerator run would keep on the host too (a sampler's parameters, a
/// helper's constants), so a tensor with no record is not device data
/// there: it is neutral, and an op judges only its device and host operands.
/// Device data is then recorded as it is made (TraceSeeds::
/// positive_device_data, Python traces only: C++ subjects keep the
/// cheaper rule of Note [Recorded storages]); the records of its freed
/// storages are dropped as the trace goes (Note [Records of freed storages]
/// in observer.cpp).
///
/// Note [Recorded storages]
/// The tracer records host data only (by storage, holding a weak reference
/// so that an address is not reused while the trial lives), and a tensor it
/// has no record of is device data. Recording every intermediate would keep
/// every StorageImpl allocated between the large buffers and fragment the
/// heap (a third more page faults, 1.6x on a uint8 blur). The cost: a C++
/// subject's plain member tensor looks like device data on the cpu row; the
/// meta and vdev rows, where it is on another device, catch it.
///
/// Note [What the tracer sees]
/// Ops are judged where CUDA judges them: the op the subject called, unless
/// it is a composite that checks nothing itself, in which case the ops it
/// calls, down to the first with a kernel of its own (`matmul` is judged at
/// its `mm`). Ops inside a judged op are ATen's business. Findings name the
/// subject's op, with its scopes (TraceScope, TorchScript functions) and its
/// source line. When an op throws, the RecordFunction's end callback runs
/// during unwinding; the tracer remembers that op, so a "same device" error
/// can be blamed on it although LibTorch's message does not name it.

#include "harness/rules/device_rules.h"
#include "harness/trace/finding.h"
#include "harness/trace/op_classification.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace devparity {

/// Note [Current device]
/// A device without an index (`device="cuda"`, `.to("cuda")`, `.cuda()`)
/// is the current device of its type, which a device guard or
/// `with torch.cuda.device(i)` sets. So it is judged by where it lands: on
/// the target it is right (the fixes of DALI #361 and torchnvjpeg #3 select
/// the index with a guard, then allocate without one); elsewhere it is a
/// device_without_index, whatever the code meant. The runner and the pytest
/// plugin run every trial with another index current than the data's, so
/// that code relying on the current device shows (execution.cpp).

/// Where the subject's code is while an op runs.
struct SourcePoint {
  std::string user;  ///< "file.py:42": the innermost frame of the subject's own code
  std::string site;  ///< "file.py:42:9": the exact expression running (for TraceSeeds sites)
};
/// Names the subject's source while an op runs, for subjects that have
/// source (TorchScript); empty when there is none.
using SourceLocator = SourcePoint (*)();
/// Installs the locator findings are stamped with (process-wide; the
/// TorchScript subject kind installs its own when registered).
void set_source_locator(SourceLocator locator);
/// The locator installed now (null when none), for a locator that defers to it.
SourceLocator source_locator();

/// Names where the asynchronous vdev's work is enqueued, for its race
/// findings: the active trace's scopes and source line, else the source
/// locator's (Python code run outside a trace). The tracer calls it.
void provide_vdev_sites();

/// DEVPARITY_HOST_HANDOVER() for front ends that cannot open a C++ scope
/// (Python's devparity.host_handover()): between enter and leave on this
/// thread, the code hands data to the host on purpose, as inside the scope.
void enter_host_handover();
/// Ends the innermost enter_host_handover() of this thread.
void leave_host_handover();

/// What the tracer is told before the subject runs.
struct TraceSeeds {
  /// The subject's input and registered state, already on the target: the
  /// device data (Note [Device data and host data]).
  std::vector<at::Tensor> device_data;
  /// Tensors the subject keeps outside registered state, by name (a
  /// TorchScript module's unregistered attributes): host data. Where one
  /// meets device data (or is returned) it is an unregistered_tensor_state.
  std::vector<std::pair<std::string, at::Tensor>> kept_state;
  /// Where each kept tensor was assigned ("model.py:12"), by name, when
  /// known (Python's modules): the line its finding names.
  std::map<std::string, std::string> kept_made_at;
  /// Sites ("file.py:12:8", SourcePoint::site) of the subject's factory
  /// calls (TorchScript's `torch.tensor(...)`, `torch.zeros(...)`): a move
  /// there is the factory's own (Note [Literal sites]).
  std::set<std::string> factory_sites;
  /// Those written with no device, which LibTorch may lower to an explicit
  /// CPU device: what they make is host data made by default.
  std::set<std::string> deviceless_sites;
  /// Factories and moves whose code names the CPU (`device="cpu"`,
  /// `.cpu()`): on the cpu row, what they make is host data although the
  /// device is the target's.
  std::set<std::string> host_sites;
  /// The target is not known in advance (Python's `devparity.trace()`): it
  /// is the given one (the CPU) until an op receives a tensor, or is asked
  /// for a device, off the CPU; that device is the target from then on.
  bool infer_target = false;
  /// Sources name lines, not expressions (Python): a move of host data made
  /// by a factory on the same line is that literal's own
  /// (`torch.tensor(values, device=d)` fills a CPU tensor, then moves it).
  bool literals_by_line = false;
  /// Factories pass the default device explicitly (Python's `torch.zeros(n)`
  /// arrives as device=cpu): a CPU device argument is taken as written
  /// without one, and what factories make before the target is inferred
  /// keeps its origin for the findings that follow.
  bool cpu_means_default = false;
  /// Note [Neutral data]: on the CPU, device data is what is proven to be
  /// (the input, registered state, what the code made for the target or
  /// computed from them, what the front end marks), host data what is proven
  /// made on the host, and a tensor of neither kind is judged with neither
  /// (Python's tensors made outside the trace: a sampler's parameters).
  bool positive_device_data = false;
};

/// A random op that drew on the target device: its draws come from the
/// device's generator, so they differ between device types by design.
struct DeviceDraw {
  std::string op;      ///< the subject's op ("aten::rand")
  std::string source;  ///< where, when known
};

/// Observes the ops of this thread (and of the threads LibTorch runs its work
/// on, such as autograd's) while it lives. One at a time per process.
class Tracer {
 public:
  /// Starts observing; findings are judged against `target` (the first one,
  /// with TraceSeeds::infer_target). Throws std::logic_error while another
  /// tracer is active.
  explicit Tracer(const c10::Device& target, TraceSeeds seeds = {});
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// Judges what the subject returned: a result off the target, and host
  /// data returned from the cpu row, are a wrong_device_output naming the
  /// line that made or moved it; returned host data made by a factory names
  /// that factory. Data made inside a declared host hand-over is the
  /// subject's purpose, and on the cpu row a host buffer filled from device
  /// data, or any result of code that never met device data (a CPU decoder
  /// of host bytes), is a CPU result of CPU input: none is reported. Returns
  /// whether it reported a wrong_device_output. Call after the subject
  /// returned.
  bool returned(const at::Tensor& output);

  /// Adds a tensor the subject keeps outside registered state, as
  /// TraceSeeds::kept_state does, while the trace runs (Python's modules are
  /// met as they are called); `made_at` is the line that assigned it. With
  /// `moved` false its module was never moved: copying it onto the target is
  /// then the module's way (a cost), and only meeting device data as it is
  /// counts. A tensor already seen is left as it is.
  void keep(const std::string& name, const at::Tensor& tensor, const std::string& made_at = "", bool moved = true);

  /// How host data the tracer cannot see made came to be (Python tells it:
  /// its factories pass the CPU explicitly, and `.cpu()` on the CPU is no op).
  enum class HostMark {
    kDefaultFactory,  ///< a factory written with no device
    kCopiedHome,      ///< code that names the CPU moved it there (`.cpu()`)
  };
  /// Records `tensor` as host data made at `source` by `op`.
  void mark_host(const at::Tensor& tensor, HostMark how, const std::string& op, const std::string& source);
  /// Forgets that `tensor` is host data: on the cpu row of a Python trace it
  /// is neutral from now on (Note [Neutral data]); the front end does so for
  /// host data whose device the code reads, which manages its placement
  /// itself (`if t.device != x.device: t = t.to(x.device)` takes another
  /// branch on the CPU than on an accelerator). Device data stays.
  void mark_neutral(const at::Tensor& tensor);
  /// Records `tensor` as device data from now on (a test's own input, made
  /// in its scaffolding: Note [Device data and host data]); host data stays
  /// host data unless `registered` (a module's parameter or buffer, which is
  /// device data whoever made it).
  void mark_device(const at::Tensor& tensor, bool registered = false);
  /// Whether `tensor` is device data (Note [Device data and host data]; on
  /// the cpu row of a Python trace, proven so: Note [Neutral data]).
  bool holds_device_data(const at::Tensor& tensor) const;
  /// Adds a finding the front end made (Python's: a device query, an
  /// attribute reassigned in forward).
  void add(const Finding& finding);
  /// The finding `returned()` would make for `output`, without adding it;
  /// empty when there is none (the pytest plugin judges what a test
  /// receives from the library with it).
  std::optional<Finding> judge_received(const at::Tensor& output) const;

  /// The findings so far, deduplicated.
  std::vector<Finding> findings() const;
  /// Random ops that drew on the target device, in order.
  std::vector<DeviceDraw> device_draws() const;
  /// The top-level op an exception left, with its scopes and, in `device`,
  /// the devices its tensors were on ("vdev:1 and vdev:0"; op empty if none).
  Finding failed_op() const;
  /// Top-level ops observed.
  int64_t ops_traced() const;
  /// Tensor arguments seen on top-level ops (the self-test's evidence).
  int64_t tensors_seen() const;
  /// Storages it keeps a record of (Note [Records of freed storages]).
  size_t records() const;
  /// The device findings are judged against (the inferred one, once known).
  c10::Device target() const;

  /// Calls `use` with the tracer active in this process, if any: front ends
  /// tell it what LibTorch's callbacks cannot see (Python's factories,
  /// modules and device queries). Returns false when none is active.
  static bool with_active(const std::function<void(Tracer&)>& use);

  /// Checks that callbacks see op inputs. A translation unit compiled without
  /// NDEBUG against a release LibTorch reads RecordFunction with the wrong
  /// layout and loses them silently; this throws std::runtime_error then.
  /// `probe` is what runs under a tracer (by default an add of two tensors);
  /// one whose tensor inputs the tracer does not see fails as such a build does.
  static void self_test(const std::function<void()>& probe = nullptr);

  /// Per-tracer bookkeeping (opaque; the callbacks reach it thread-locally).
  class State;

 private:
  std::unique_ptr<State> state_;
  uint64_t handle_ = 0;
};

}  // namespace devparity
