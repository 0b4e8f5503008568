#include "harness/trace/tracer.h"

#include "harness/base/dtype.h"
#include "harness/device/device.h"
#include "harness/trace/tracer_state.h"
#include "harness/vdev/async.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <stdexcept>

namespace devparity {

using namespace tracing;
using op_kinds::make;

namespace {

void remember_kept(Tracer::State& s, const std::string& name, const at::Tensor& t, const std::string& made_at = "",
                   bool moved = true) {
  if (!t.defined()) return;
  auto o = std::make_shared<Origin>();
  o->made = Origin::Made::kKeptState;
  o->op = name;
  o->source = made_at;
  o->moved_module = moved;
  remember(s, t, true, std::move(o));
}

// Note [Parameters the library samples]: a library that samples its
// parameters on the host (torchvision's make_params and get_params: the CPU
// generator's draws, the same on every device for one seed, and the fill
// value the caller gave as numbers) hands them back to a test that asks for
// them; a GPU run hands them back on the CPU too, and the kernel that uses
// them copies them over. Such host data (drawn from the host generator, or a
// non-empty tensor of Python numbers: made empty with no device and filled by
// no op) is not the call's result in the wrong place. Where it meets device
// data, CUDA's rules judge it as any host data. Results made with no device
// by a sized factory (Kornia #2926's empty descriptors, `torch.ones(n)`) are.
bool sampled_parameters(const Record* r, const at::Tensor& t) {
  if (r == nullptr || !r->host || !r->origin || r->origin->made != Origin::Made::kDefaultFactory) return false;
  const auto& op = r->origin->op;
  // (The cpu row names a factory by its Python call: "torch.rand".)
  const auto base = op.rfind("torch.", 0) == 0 ? "aten::" + op.substr(6) : op.substr(0, op.find('.'));
  if (r->drawn || op_kinds::is_random(base)) return true;
  const bool literal = op == "torch.tensor" || op == "torch.as_tensor" || op == "torch.asarray" ||
                       (base == "aten::empty" && !r->written);
  return literal && t.numel() > 0;
}

// The findings of handing `output` back (Tracer::returned and
// judge_received); `wrong` says whether one is a wrong_device_output.
std::vector<Finding> hand_back(const Tracer::State& s, const at::Tensor& output, bool& wrong,
                               bool given_device_data = false) {
  std::vector<Finding> out;
  wrong = false;
  if (!output.defined()) return out;
  const bool off_target = output.device() != s.target;
  const auto* r = record_of(s, output);
  auto origin = r != nullptr ? r->origin : nullptr;
  const auto homed = s.homed.find(output.unsafeGetTensorImpl());
  if (!off_target && homed != s.homed.end() && !homed->second.first.expired()) origin = homed->second.second;
  const bool host = is_host_data(s, output) || (!off_target && homed != s.homed.end() && origin);
  if (!host && !off_target) return out;
  if (origin && origin->declared) return out;  // a declared hand-over: the point
  if (given_device_data && sampled_parameters(r, output)) return out;
  // The cpu row: a host buffer filled from the input, or code that never met device data
  // at all (a CPU decoder of host bytes), is a CPU result of CPU input.
  const bool device_work = given_device_data || s.device_work;
  if (!off_target && ((r != nullptr && r->filled) || (s.positive && !device_work))) return out;
  const TensorInfo info{output.device(), output.sizes().vec(), output.scalar_type()};
  if (origin) {
    if (auto f = origin_finding(*origin, s.target, "the subject returns it", output.device())) {
      f->shape = info.shape;
      f->dtype = dtype_name(info.dtype);
      out.push_back(*f);
    }
  }
  Finding f = make(finding_kind::kWrongDeviceOutput, Severity::kError, "",
                   off_target ? fmt::format("the subject returned its result on {}; the target is {}",
                                            device_label(output.device()), device_label(s.target))
                              : fmt::format("the subject returned host data, not data derived from its input or "
                                            "made on {}: on an accelerator it would come back on the CPU",
                                            device_label(s.target)),
                   nullptr, &info);
  if (origin) {
    f.made_at = origin->source;
    if (origin->made == Origin::Made::kCopiedHome && !origin->op.empty()) {
      f.message += fmt::format(" ({} moved it there{})", origin->op,
                               origin->source.empty() ? "" : " at " + origin->source);
    }
  }
  out.push_back(std::move(f));
  wrong = true;
  return out;
}

}  // namespace

void set_source_locator(SourceLocator locator) { g_locator.store(locator); }

void enter_host_handover() { ++tls_handover_depth; }

void leave_host_handover() {
  if (tls_handover_depth > 0) --tls_handover_depth;
}

void provide_vdev_sites() { vdev::async::set_site_provider(&vdev_site); }

SourceLocator source_locator() { return g_locator.load(); }

Tracer::Tracer(const c10::Device& target, TraceSeeds seeds) : state_(std::make_unique<State>()) {
  static std::atomic<uint64_t> generations{0};
  state_->generation = ++generations;
  state_->target = target;
  state_->factory_sites = std::move(seeds.factory_sites);
  state_->deviceless_sites = std::move(seeds.deviceless_sites);
  state_->host_sites = std::move(seeds.host_sites);
  state_->infer_target = seeds.infer_target;
  state_->target_inferred = seeds.infer_target;
  state_->literals_by_line = seeds.literals_by_line;
  state_->cpu_means_default = seeds.cpu_means_default;
  state_->positive = seeds.positive_device_data;
  for (const auto& t : seeds.device_data) {
    if (!t.defined()) continue;
    remember(*state_, t, false, nullptr);
    if (auto* key = storage_of(t)) state_->storages[key].seeded = true;
  }
  for (const auto& [name, t] : seeds.kept_state) {
    const auto made = seeds.kept_made_at.find(name);
    remember_kept(*state_, name, t, made == seeds.kept_made_at.end() ? std::string() : made->second);
  }
  provide_vdev_sites();
  State* expected = nullptr;
  if (!g_active.compare_exchange_strong(expected, state_.get())) {
    throw std::logic_error("a Tracer is already active (one at a time, Note [Tracer threads])");
  }
  {
    std::lock_guard<std::mutex> lock(g_active_mutex);
    g_active_tracer = this;
  }
  handle_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(on_start, on_end)
          .needsInputs(true)
          .needsOutputs(true)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE,
                   at::RecordScope::TORCHSCRIPT_FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

Tracer::~Tracer() {
  at::removeCallback(handle_);
  {
    std::lock_guard<std::mutex> lock(g_active_mutex);
    g_active_tracer = nullptr;
  }
  g_active.store(nullptr);
}

bool Tracer::with_active(const std::function<void(Tracer&)>& use) {
  std::lock_guard<std::mutex> lock(g_active_mutex);
  if (g_active_tracer == nullptr) return false;
  use(*g_active_tracer);
  return true;
}

void Tracer::keep(const std::string& name, const at::Tensor& tensor, const std::string& made_at, bool moved) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!tensor.defined()) return;
  // Host data made by a factory (a module built inside the trace) is kept
  // state from now on: that is what its fix is.
  const auto* r = record_of(*state_, tensor);
  if (tensor.device() != state_->target || r == nullptr || r->host || (r->origin && tensor.device().is_cpu())) {
    remember_kept(*state_, name, tensor, made_at, moved);
  }
}

bool Tracer::returned(const at::Tensor& output) {
  auto& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  bool wrong = false;
  for (const auto& f : hand_back(s, output, wrong)) s.findings.add(f);
  return wrong;
}

std::optional<Finding> Tracer::judge_received(const at::Tensor& output) const {
  auto& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  bool wrong = false;
  auto found = hand_back(s, output, wrong, /*given_device_data=*/true);
  if (!wrong) return std::nullopt;
  return found.back();
}

void Tracer::mark_host(const at::Tensor& tensor, HostMark how, const std::string& op, const std::string& source) {
  if (!tensor.defined()) return;
  auto& s = *state_;
  auto o = std::make_shared<Origin>();
  o->made = how == HostMark::kDefaultFactory ? Origin::Made::kDefaultFactory : Origin::Made::kCopiedHome;
  o->op = op;
  o->source = source;
  o->declared = tls_handover_depth > 0;  // made inside a declared hand-over
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto* r = record_of(s, tensor);
  if (how == HostMark::kCopiedHome && (r == nullptr || !r->host || r->seeded)) {
    // `.cpu()` on the CPU returns its input: the storage stays device data
    // for the code that holds it, and this tensor goes home by its words.
    s.homed.insert_or_assign(tensor.unsafeGetTensorImpl(),
                             std::make_pair(c10::weak_intrusive_ptr<c10::TensorImpl>(tensor.getIntrusivePtr()),
                                            std::shared_ptr<const Origin>(std::move(o))));
    return;
  }
  if (r != nullptr && r->seeded) return;
  if (how == HostMark::kDefaultFactory && !source.empty()) {
    // A draw the dispatcher took for the target's is a host draw after all.
    s.draws.erase(std::remove_if(s.draws.begin(), s.draws.end(),
                                 [&](const DeviceDraw& d) { return d.source == source; }),
                  s.draws.end());
    s.findings.erase_if([&](const Finding& f) { return f.kind == finding_kind::kDeviceRandom && f.source == source; });
  }
  remember(s, tensor, true, std::move(o));
}

void Tracer::mark_neutral(const at::Tensor& tensor) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!state_->positive) return;
  const auto* r = record_of(*state_, tensor);
  if (r == nullptr || !r->host) return;  // device data stays device data
  if (auto* key = storage_of(tensor)) state_->storages.erase(key);
}

void Tracer::mark_device(const at::Tensor& tensor, bool registered) {
  if (!tensor.defined()) return;
  std::lock_guard<std::mutex> lock(state_->mutex);
  const auto* r = record_of(*state_, tensor);
  if (!registered && r != nullptr && r->host && !r->provisional) return;  // host data stays host data
  state_->device_work = true;
  remember(*state_, tensor, false, nullptr);
  if (auto* key = storage_of(tensor)) state_->storages[key].seeded = true;
}

bool Tracer::holds_device_data(const at::Tensor& tensor) const {
  if (!tensor.defined()) return false;
  std::lock_guard<std::mutex> lock(state_->mutex);
  return tensor.device() == state_->target && !is_host_data(*state_, tensor) && !is_neutral(*state_, tensor);
}

void Tracer::add(const Finding& finding) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  // One finding per stray attribute: the tracer's own, where it saw it at the same line.
  const auto& seen = state_->findings.items();
  if (finding.kind == finding_kind::kUnregisteredTensorState && !finding.source.empty() &&
      std::any_of(seen.begin(), seen.end(),
                  [&](const Finding& f) { return f.kind == finding.kind && f.source == finding.source; })) {
    return;
  }
  state_->findings.add(finding);
}

std::vector<Finding> Tracer::findings() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->findings.items();
}

std::vector<DeviceDraw> Tracer::device_draws() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->draws;
}

c10::Device Tracer::target() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->target;
}

const Finding& Tracer::failed_op() const { return state_->failed; }

int64_t Tracer::ops_traced() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->ops;
}

size_t Tracer::records() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->storages.size();
}

int64_t Tracer::tensors_seen() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->tensors;
}

void Tracer::self_test(const std::function<void()>& probe) {
  const auto a = at::ones({2});
  int64_t tensors = 0;
  {
    Tracer tracer(c10::Device(c10::DeviceType::CPU));
    if (probe) {
      probe();
    } else {
      (void)at::add(a, a);
    }
    tensors = tracer.tensors_seen();
  }
  if (tensors < 2) {
    throw std::runtime_error(
        "the placement tracer cannot see op inputs: this build does not match LibTorch's "
        "RecordFunction layout (compile every translation unit with -DNDEBUG against a release "
        "LibTorch)");
  }
}

}  // namespace devparity
