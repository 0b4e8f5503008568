#include "harness/trace/tracer.h"

#include "harness/base/dtype.h"
#include "harness/device/device.h"
#include "harness/trace/active_tracer.h"
#include "harness/trace/finding_kinds.h"
#include "harness/trace/tracer_state.h"
#include "harness/vdev/async.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <fmt/format.h>

#include <stdexcept>

namespace devparity {

using namespace tracing;
using op_kinds::make;

namespace {

void remember_kept(Tracer::State::Locked& locked, const std::string& name, const at::Tensor& t, const std::string& made_at = "",
                   bool moved = true) {
  if (!t.defined()) return;
  auto o = std::make_shared<Origin>();
  o->made = Origin::Made::kKeptState;
  o->op = name;
  o->source = made_at;
  o->moved_module = moved;
  locked.remember(t, true, std::move(o));
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
std::vector<Finding> hand_back(const Tracer::State& s, const Tracer::State::Locked& locked, const at::Tensor& output,
                               bool& wrong, bool given_device_data = false) {
  std::vector<Finding> out;
  wrong = false;
  if (!output.defined()) return out;
  const auto target = s.target();
  const bool off_target = output.device() != target;
  const auto* r = locked.record_of(output);
  auto origin = r != nullptr ? r->origin : nullptr;
  const auto homed = off_target ? nullptr : locked->records.sent_home(output);
  if (homed) origin = homed;
  const bool host = locked.is_host_data(output) || homed != nullptr;
  if (!host && !off_target) return out;
  if (origin && origin->declared) return out;  // a declared hand-over: the point
  if (given_device_data && sampled_parameters(r, output)) return out;
  // The cpu row: a host buffer filled from the input, or code that never met device data
  // at all (a CPU decoder of host bytes), is a CPU result of CPU input.
  const bool device_work = given_device_data || locked->device_work;
  if (!off_target && ((r != nullptr && r->filled) || (s.rules().positive && !device_work))) return out;
  const TensorInfo info{output.device(), output.sizes().vec(), output.scalar_type()};
  if (origin) {
    if (auto f = origin_finding(*origin, target, "the subject returns it", output.device())) {
      f->shape = info.shape;
      f->dtype = dtype_name(info.dtype);
      out.push_back(*f);
    }
  }
  Finding f = make(finding_kind::kWrongDeviceOutput, Severity::kError, "",
                   off_target ? fmt::format("the subject returned its result on {}; the target is {}",
                                            device_label(output.device()), device_label(target))
                              : fmt::format("the subject returned host data, not data derived from its input or "
                                            "made on {}: on an accelerator it would come back on the CPU",
                                            device_label(target)),
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

void set_source_locator(SourceLocator locator) { ActiveTracer::get().set_locator(locator); }

void enter_host_handover() { ++ActiveTracer::handover_depth(); }

void leave_host_handover() {
  auto& depth = ActiveTracer::handover_depth();
  if (depth > 0) --depth;
}

void provide_vdev_sites() { vdev::async::set_site_provider(&vdev_site); }

SourceLocator source_locator() { return ActiveTracer::get().locator(); }

Tracer::Tracer(const c10::Device& target, TraceSeeds seeds) : state_(std::make_unique<State>(target, seeds)) {
  {
    auto locked = state_->lock();
    for (const auto& t : seeds.device_data) {
      if (auto* r = t.defined() ? locked.remember(t, false, nullptr) : nullptr) r->seeded = true;
    }
    for (const auto& [name, t] : seeds.kept_state) {
      const auto made = seeds.kept_made_at.find(name);
      remember_kept(locked, name, t, made == seeds.kept_made_at.end() ? std::string() : made->second);
    }
  }
  provide_vdev_sites();
  ActiveTracer::get().activate(*this, *state_);
  handle_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(on_start, on_end)
          .needsInputs(true)
          .needsOutputs(true)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE,
                   at::RecordScope::TORCHSCRIPT_FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

Tracer::~Tracer() {
  at::removeCallback(handle_);
  ActiveTracer::get().deactivate();
}

bool Tracer::with_active(const std::function<void(Tracer&)>& use) { return ActiveTracer::get().with(use); }

void Tracer::keep(const std::string& name, const at::Tensor& tensor, const std::string& made_at, bool moved) {
  if (!tensor.defined()) return;
  auto locked = state_->lock();
  // Host data made by a factory (a module built inside the trace) is kept
  // state from now on: that is what its fix is.
  const auto* r = locked.record_of(tensor);
  if (tensor.device() != state_->target() || r == nullptr || r->host || (r->origin && tensor.device().is_cpu())) {
    remember_kept(locked, name, tensor, made_at, moved);
  }
}

bool Tracer::returned(const at::Tensor& output) {
  auto locked = state_->lock();
  bool wrong = false;
  for (const auto& f : hand_back(*state_, locked, output, wrong)) locked->findings.add(f);
  return wrong;
}

std::optional<Finding> Tracer::judge_received(const at::Tensor& output) const {
  const auto locked = state_->lock();
  bool wrong = false;
  auto found = hand_back(*state_, locked, output, wrong, /*given_device_data=*/true);
  if (!wrong) return std::nullopt;
  return found.back();
}

void Tracer::mark_host(const at::Tensor& tensor, HostMark how, const std::string& op, const std::string& source) {
  if (!tensor.defined()) return;
  auto o = std::make_shared<Origin>();
  o->made = how == HostMark::kDefaultFactory ? Origin::Made::kDefaultFactory : Origin::Made::kCopiedHome;
  o->op = op;
  o->source = source;
  o->declared = ActiveTracer::handover_depth() > 0;  // made inside a declared hand-over
  auto locked = state_->lock();
  const auto* r = locked.record_of(tensor);
  if (how == HostMark::kCopiedHome && (r == nullptr || !r->host || r->seeded)) {
    // `.cpu()` on the CPU returns its input: the storage stays device data
    // for the code that holds it, and this tensor goes home by its words.
    locked->records.send_home(tensor, std::move(o));
    return;
  }
  if (r != nullptr && r->seeded) return;
  if (how == HostMark::kDefaultFactory && !source.empty()) {
    // A draw the dispatcher took for the target's is a host draw after all.
    auto& draws = locked->draws;
    draws.erase(std::remove_if(draws.begin(), draws.end(), [&](const DeviceDraw& d) { return d.source == source; }),
                draws.end());
    locked->findings.erase_if(
        [&](const Finding& f) { return f.kind == finding_kind::kDeviceRandom && f.source == source; });
  }
  locked.remember(tensor, true, std::move(o));
}

void Tracer::mark_neutral(const at::Tensor& tensor) {
  if (!state_->rules().positive) return;
  auto locked = state_->lock();
  const auto* r = locked.record_of(tensor);
  if (r == nullptr || !r->host) return;  // device data stays device data
  locked->records.forget(tensor);
}

void Tracer::mark_device(const at::Tensor& tensor, bool registered) {
  if (!tensor.defined()) return;
  auto locked = state_->lock();
  const auto* r = locked.record_of(tensor);
  if (!registered && r != nullptr && r->host && !r->provisional) return;  // host data stays host data
  locked->device_work = true;
  if (auto* seeded = locked.remember(tensor, false, nullptr)) seeded->seeded = true;
}

bool Tracer::holds_device_data(const at::Tensor& tensor) const {
  if (!tensor.defined()) return false;
  const auto locked = state_->lock();
  return tensor.device() == state_->target() && !locked.is_host_data(tensor) && !locked.is_neutral(tensor);
}

void Tracer::add(const Finding& finding) {
  auto locked = state_->lock();
  // One finding per stray attribute: the tracer's own, where it saw it at the same line.
  const auto& seen = locked->findings.items();
  if (finding.kind == finding_kind::kUnregisteredTensorState && !finding.source.empty() &&
      std::any_of(seen.begin(), seen.end(),
                  [&](const Finding& f) { return f.kind == finding.kind && f.source == finding.source; })) {
    return;
  }
  locked->findings.add(finding);
}

std::vector<Finding> Tracer::findings() const { return state_->lock()->findings.items(); }

std::vector<DeviceDraw> Tracer::device_draws() const { return state_->lock()->draws; }

c10::Device Tracer::target() const { return state_->target(); }

Finding Tracer::failed_op() const { return state_->lock()->failed; }

int64_t Tracer::ops_traced() const { return state_->lock()->ops; }

size_t Tracer::records() const { return state_->lock()->records.size(); }

int64_t Tracer::tensors_seen() const { return state_->lock()->tensors; }

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
