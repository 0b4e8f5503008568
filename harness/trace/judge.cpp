// Judging an op (trace/judge.h): its operands by CUDA's device rules, the
// origins of host data it meets, and the records of what it made.
#include "harness/trace/judge.h"

#include "harness/base/dtype.h"
#include "harness/device/device.h"
#include "harness/rules/device_rules.h"
#include "harness/rules/op_arguments.h"
#include "harness/trace/finding_kinds.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace devparity::tracing {
namespace {

using op_kinds::classify;
using op_kinds::make;
using op_kinds::move_destination;
using op_kinds::op_words;
using op_kinds::Side;
using op_kinds::side_of;

// "aten::arange at ramp.py:12".
std::string where(const std::string& op, const std::string& source) {
  return source.empty() ? op : fmt::format("{} at {}", op, source);
}

// Backward lines (Note [Backward lines]): autograd's engine runs backward on threads with no
// Python frames, so a finding there had no line. The engine records each
// backward function with its forward op's sequence number and thread; the
// forward op's line was kept when it ran (remember_forward_line), and an
// op's autograd nodes take its number or the next ones before the next
// top-level op's: the line is that of the last top-level op recorded at or
// before the node's number on its thread.
SourcePoint source_here(Tracer::State& s, const ThreadFrames& t) {
  auto here = current_source();
  if (!here.user.empty()) return here;
  for (auto f = t.frames.rbegin(); f != t.frames.rend(); ++f) {
    if (f->forward_seq < 0) continue;
    const auto locked = s.lock();
    if (const auto* line = locked->forward_lines.at(f->forward_thread, f->forward_seq)) here.user = *line;
    break;
  }
  return here;
}

// The line of a top-level op that records autograd work, for its backward.
void remember_forward_line(Tracer::State& s, const at::RecordFunction& fn, c10::ArrayRef<c10::IValue> inputs) {
  if (fn.seqNr() < 0 || !at::GradMode::is_enabled()) return;
  const bool records = std::any_of(inputs.begin(), inputs.end(), [](const c10::IValue& v) {
    return v.isTensor() && v.toTensor().defined() && v.toTensor().requires_grad();
  });
  if (!records) return;
  auto here = current_source();
  if (here.user.empty()) return;
  s.lock()->forward_lines.add(fn.threadId(), fn.seqNr(), std::move(here.user));
}

// An op's own arguments (or results): the dispatcher hands a boxed call's
// whole stack to the callbacks, and the TorchScript interpreter's holds live
// values below them, so they are the last `count` entries.
template <typename Values>
c10::ArrayRef<c10::IValue> last(const Values& values, int count) {
  const size_t n = values.size();
  const size_t from = count >= 0 && n > static_cast<size_t>(count) ? n - static_cast<size_t>(count) : 0;
  return c10::ArrayRef<c10::IValue>(values.data() + from, n - from);
}

// Calls `use` with each defined tensor among an op's outputs, lists and
// tuples flattened, while it returns true; false if it stopped.
template <typename Use>
bool each_tensor(const c10::IValue& v, const Use& use) {
  if (v.isTensor()) return !v.toTensor().defined() || use(v.toTensor());
  if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorList()) {
      if (t.defined() && !use(t)) return false;
    }
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) {
      if (!each_tensor(e, use)) return false;
    }
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) {
      if (!each_tensor(e, use)) return false;
    }
  }
  return true;
}

// Host data made by a factory: how, judged at the subject's own factory
// call (a composite factory's inner `empty` inherits its device argument).
std::shared_ptr<const Origin> factory_origin(const Tracer::State& s, const ThreadFrames& t,
                                             const std::string& op,
                                             const std::optional<c10::Device>& device,
                                             std::optional<Side>& side) {
  SourcePoint at;
  bool located = false;
  bool written_without = !device.has_value() ||
                        (s.rules().cpu_means_default && device->is_cpu() && !s.target().is_cpu());
  bool names_host = false;
  if (!written_without && (!s.rules().deviceless_sites.empty() || !s.rules().host_sites.empty())) {
    at = current_source();
    located = true;
    written_without = s.rules().deviceless_sites.count(at.site) != 0;
    names_host = s.rules().host_sites.count(at.site) != 0;
  }
  Origin o;
  if (written_without) {
    side = Side::kHost;
    o.made = Origin::Made::kDefaultFactory;
  } else if (names_host) {
    side = Side::kHost;
    o.made = Origin::Made::kHostFactory;
  } else if (*device == s.target() || (device->type() == s.target().type() && !device->has_index())) {
    side = Side::kTarget;
    // Before the target is inferred, a CPU factory may be host data after all.
    if (!(s.inferring() && s.rules().cpu_means_default && device->is_cpu())) return nullptr;
    o.made = Origin::Made::kDefaultFactory;
  } else if (device->is_cpu()) {
    side = Side::kHost;
    o.made = Origin::Made::kHostFactory;
  } else {
    side = Side::kForeign;
    return nullptr;
  }
  if (!located) at = current_source();
  o.op = op;
  o.source = at.user;
  o.site = at.site;
  o.scopes = t.scopes();
  return std::make_shared<const Origin>(std::move(o));
}

// Adds an op's findings, and for each blamed tensor with a known maker the
// finding that names its maker; `verb` says what happened to it at `meeting`
// (Note [Making and meeting lines]).
void add_findings(Tracer::State& s, ThreadFrames& t, std::vector<Finding> found,
                  const std::vector<std::pair<const TensorInfo*, std::shared_ptr<const Origin>>>& blamed_origins,
                  const std::string& meeting, const std::string& verb = "meets device data in",
                  Severity kept_severity = Severity::kError) {
  if (found.empty() && blamed_origins.empty()) return;
  // Inside a declared hand-over the host transfers are the point; they
  // stay visible as notes, and anything else is judged as usual.
  if (t.in_scope(kHostHandoverScope)) {
    for (auto& f : found) {
      if (f.kind == finding_kind::kHostSync || f.kind == finding_kind::kHostToDeviceCopy) {
        f.severity = Severity::kNote;
        f.message += " (declared host hand-over)";
      }
    }
  }
  const auto scopes = t.scopes();
  const auto here = source_here(s, t);
  const auto locked = s.lock();
  const auto target = s.target();
  std::string made_at;
  for (const auto& [tensor, origin] : blamed_origins) {
    if (!origin) continue;
    if (auto f = origin_finding(*origin, target, fmt::format("{} {}", verb, where(meeting, here.user)),
                                tensor->device)) {
      f->shape = tensor->shape;
      f->dtype = dtype_name(tensor->dtype);
      if (origin->made == Origin::Made::kKeptState) {
        f->severity = kept_severity;
        f->scopes = scopes;
        if (f->source.empty()) f->source = here.user;  // no assignment line known: where it is used
      }
      if (f->source != here.user) f->met_at = here.user;
      locked->findings.add(*f);
    }
    if (made_at.empty()) made_at = origin->source;
  }
  for (auto& f : found) {
    f.scopes = scopes;
    f.source = here.user;
    if (f.kind == finding_kind::kForeignDeviceInput && made_at != here.user) f.made_at = made_at;
    locked->findings.add(f);
  }
}

// The op's tensor arguments, each with its device, side and (for host data)
// where it was made; notes on the frame what its callees need to know.
std::vector<std::shared_ptr<const Origin>> read_tensors(Tracer::State& s, Frame& frame,
                                                        c10::ArrayRef<c10::IValue> inputs, OpCall& call) {
  std::vector<std::shared_ptr<const Origin>> origins;
  if (frame.info->schema == nullptr) return origins;
  const auto tensors = argument_tensors(*frame.info->schema, inputs);
  call.tensors.reserve(tensors.size());
  const auto target = s.target();
  const auto locked = s.lock();
  for (const auto& a : tensors) {
    if (locked.is_neutral(a.tensor)) {  // Note [Neutral data]: judged with neither side
      frame.inputs_neutral = true;
      continue;
    }
    TensorInfo ti{a.tensor.device(), a.tensor.sizes().vec(), a.tensor.scalar_type(), std::string(a.argument),
                  a.output, false};
    const bool host = locked.is_host_data(a.tensor);
    // A wrapped Python number is a scalar, not data that places a result.
    frame.inputs_host = frame.inputs_host || (host && !a.tensor.unsafeGetTensorImpl()->is_wrapped_number());
    ti.host_data = host && ti.device == target;
    // Tensors on another accelerator have a record when they are kept state.
    const auto* r = host || ti.device != target ? locked.record_of(a.tensor) : nullptr;
    if (host) {
      if (!frame.host_origin && r != nullptr) frame.host_origin = r->origin;
    } else if (ti.device == target) {
      frame.inputs_target = true;
      locked->device_work = true;
    } else if (!frame.foreign_origin && r != nullptr) {
      frame.foreign_origin = r->origin;
    }
    origins.push_back(r != nullptr ? r->origin : nullptr);
    if (host && r != nullptr && r->origin) ti.origin = describe(*r->origin);
    call.tensors.push_back(std::move(ti));
  }
  if (frame.top) locked->tensors += static_cast<int64_t>(call.tensors.size());
  return origins;
}

// A factory's side and origin: its own device argument at the top, its
// parent's for a composite factory's callees, its inputs' for a buffer a
// composite allocates.
void note_factory(Tracer::State& s, ThreadFrames& t, Frame& frame, const OpCall& call) {
  const Frame* parent = t.parent_op(frame);
  if (parent == nullptr) {
    frame.factory_origin = factory_origin(s, t, call.op, call.device, frame.factory_side);
    frame.user_factory = true;
  } else if (parent->info != nullptr && parent->info->factory) {
    // A composite factory's callees take the subject's device argument.
    frame.factory_origin = parent->factory_origin;
    frame.factory_side = parent->factory_side;
    frame.user_factory = parent->user_factory;
  } else {
    // A buffer a composite allocates for its result belongs with its
    // inputs' data, whatever device ATen spelled out for it.
    if (s.rules().positive && !parent->inputs_target && (parent->inputs_neutral || !parent->inputs_host)) return;
    frame.factory_side = parent->inputs_target ? Side::kTarget : Side::kHost;
    frame.factory_origin = parent->inputs_target ? nullptr : parent->host_origin;
  }
}

// A move's destination side, and whether it is a literal's own move.
void note_move(Tracer::State& s, Frame& frame, OpCall& call, const std::shared_ptr<const Origin>& moved) {
  const bool copy_into = frame.info->base == "aten::copy_";
  // Where the subject's code is, asked once: only when a site set can tell.
  const bool names_host_here = !copy_into && s.target().is_cpu() && !s.rules().host_sites.empty();
  const bool from_host = !call.tensors.empty() && side_of(call.tensors[0], s.target()) == Side::kHost;
  const bool literal_here = !copy_into && from_host && (!s.rules().factory_sites.empty() || s.rules().literals_by_line);
  const auto here = names_host_here || literal_here ? current_source().site : std::string();
  // Note [Device data and host data]: on the cpu row `.cpu()` is no move
  // unless the code says so.
  if (names_host_here) call.names_host = s.rules().host_sites.count(here) != 0;
  if (!call.tensors.empty()) {
    frame.move_to = copy_into ? std::optional<Side>(side_of(call.tensors[0], s.target()))
                              : move_destination(call, s.target());
    frame.move_from_host = from_host;
  }
  // Note [Literal sites]: TorchScript lowers `torch.tensor(values, ...)`
  // to a CPU tensor filled on the host, then a `to` at the same site. That
  // `to` is the literal's own: it moves nothing the subject made
  // elsewhere, and what it gives is still the literal (host data when
  // written with no device; device data when given the device).
  if (literal_here && s.rules().literals_by_line) {
    frame.literal = !here.empty() && moved && moved->site == here &&
                    (moved->made == Origin::Made::kHostFactory || moved->made == Origin::Made::kDefaultFactory);
  } else if (literal_here) {
    frame.literal = s.rules().factory_sites.count(here) != 0;
    frame.literal_on_host = frame.literal && s.rules().deviceless_sites.count(here) != 0;
  }
}

// The current device of `type` (Note [Current device]): what a device
// without an index means now; unknown for types with no guard here.
std::optional<c10::Device> current_device(c10::DeviceType type) {
  if (type == c10::DeviceType::CPU || type == c10::DeviceType::Meta) return std::nullopt;
  try {
    const auto* impl = c10::impl::getDeviceGuardImpl(type);
    if (impl == nullptr) return std::nullopt;
    return impl->getDevice();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Removes the host_to_device_copy findings: the copy is what the code must
// do (a literal's), or another finding says what is wrong with it.
void drop_copies(std::vector<Finding>& found) {
  found.erase(std::remove_if(found.begin(), found.end(),
                             [](const Finding& f) { return f.kind == finding_kind::kHostToDeviceCopy; }),
              found.end());
}

// Note [Kept state]: a tensor attribute that moving the module left behind
// and that forward moves onto the target is reported at the attribute's
// line, instead of the move's host_to_device_copy. Left on another
// accelerator and copied to another, it is the bug itself, an error: on a
// real GPU the copy from cuda:0 is what gave Kornia #2791 its wrong values.
// Copied from or to the host it is a cost, a warning: such a copy is right
// on every machine, and the code passes on a real GPU (Kornia's BlurPool2D
// and SIFTDescriptor, whose suites would otherwise fail on the simulated
// device alone).
bool kept_state_moved(Tracer::State& s, ThreadFrames& t, const Frame& frame, const OpCall& call,
                      const std::vector<std::shared_ptr<const Origin>>& origins, std::vector<Finding>& found,
                      int blamed) {
  const bool copy_into = frame.info->base == "aten::copy_";
  const size_t src = copy_into ? 1 : 0;
  if (src >= origins.size() || !origins[src] || origins[src]->made != Origin::Made::kKeptState ||
      !origins[src]->moved_module) {
    return false;
  }
  if (!frame.move_to || *frame.move_to != Side::kTarget) return false;
  if (static_cast<size_t>(blamed) == src) drop_copies(found);
  std::vector<std::pair<const TensorInfo*, std::shared_ptr<const Origin>>> makers = {
      {&call.tensors[src], origins[src]}};
  const bool across_accelerators = !call.tensors[src].device.is_cpu() && !s.target().is_cpu();
  add_findings(s, t, std::move(found), makers, op_words(call), fmt::format("is copied to {} by", device_label(s.target())),
               across_accelerators ? Severity::kError : Severity::kWarning);
  return true;
}

// TraceSeeds::infer_target: the first device off the CPU that an op
// receives, as a tensor or as its device argument, is the target.
void infer_target(Tracer::State& s, const OpInfo& info, c10::ArrayRef<c10::IValue> inputs) {
  std::optional<c10::Device> found;
  if (info.device_index >= 0 && static_cast<size_t>(info.device_index) < inputs.size() &&
      inputs[info.device_index].isDevice() && !inputs[info.device_index].toDevice().is_cpu()) {
    found = inputs[info.device_index].toDevice();
  }
  if (!found && info.schema != nullptr) {
    for (const auto& a : argument_tensors(*info.schema, inputs)) {
      if (!a.tensor.device().is_cpu()) {
        found = a.tensor.device();
        break;
      }
    }
  }
  if (!found) return;
  if (!found->has_index()) {  // Note [Current device]: where it lands
    if (const auto current = current_device(found->type())) found = current;
  }
  s.infer(*found);
}

// Note [The tracer's fast path]
// Most ops a subject runs get device data alone. Such an op, if it names
// no device, moves nothing, makes nothing from nothing and waits for
// nothing, has no finding to give (every device rule accepts operands all
// on the target: tests/rules/device_rules_test.cpp), and on an
// accelerator what it makes of device data is device data, which the
// tracer does not record (Note [Recorded storages]). Both callbacks return
// early for it: classify_op and the output record are what the trace of a
// real suite spent its time on.
bool nothing_to_classify(const OpInfo& info, const Frame* user, const OpCall& call, const c10::Device& target) {
  if (info.factory || info.move || info.syncing || call.has_device_argument) return false;
  if (user != nullptr && user->info != nullptr && user->info->syncing) return false;
  return std::all_of(call.tensors.begin(), call.tensors.end(),
                     [&](const TensorInfo& t) { return side_of(t, target) == Side::kTarget; });
}

// A move that returned its input (`.to(x.device)` of data already there)
// changes where the subject's code thinks that data is.
void note_returned_input(Tracer::State& s, const Frame& frame, const at::Tensor& out, Record& r,
                         const std::function<std::shared_ptr<const Origin>()>& home) {
  if (*frame.move_to == Side::kTarget && r.host && out.device() == s.target()) {
    r.host = false;
  } else if (*frame.move_to == Side::kHost && !r.host && !r.seeded && out.device() == s.target()) {
    // `.cpu()` on the cpu row returns its input: what the subject
    // computed is now, by its own words, on the host. (Its input and
    // state stay device data: other references to them remain.) Its line
    // is the one the accelerator rows name, so one bug reads as one problem.
    r.host = true;
    r.origin = home();
  }
}

// Whether a new output is host data, and where it was made.
bool new_output_on_host(const Tracer::State& s, const Frame& frame, const at::Tensor& out,
                        std::shared_ptr<const Origin>& origin) {
  if (out.device() != s.target()) {
    const bool host = out.device().is_cpu();
    if (host && frame.factory_origin) {
      origin = frame.factory_origin;
    } else if (host && !frame.inputs_target && frame.host_origin) {
      origin = frame.host_origin;
    } else if (host) {
      auto o = std::make_shared<Origin>();
      o->made = frame.inputs_target ? Origin::Made::kCopiedHome : Origin::Made::kUnknown;
      origin = std::move(o);
    }
    return host;
  }
  if (!s.target().is_cpu()) return false;
  if (frame.literal_on_host) {
    origin = frame.host_origin;
    return true;
  }
  if (frame.move_to) {
    const bool host = *frame.move_to == Side::kHost;
    if (host) origin = frame.host_origin;
    if (host && !origin && frame.inputs_target) {
      // The cpu row's `.cpu()` of device data: copied home, as on an accelerator (its line is added).
      auto o = std::make_shared<Origin>();
      o->made = Origin::Made::kCopiedHome;
      origin = std::move(o);
    }
    return host;
  }
  if (frame.factory_side) {
    origin = frame.factory_origin;
    return *frame.factory_side == Side::kHost;
  }
  // Note [Neutral data]: without device data, a result of neutral data is neutral (`neutral[host_mask]`
  // is the indexed tensor's), and so is one of no data at all.
  if (s.rules().positive && !frame.inputs_target && (frame.inputs_neutral || !frame.inputs_host)) return false;
  const bool host = !frame.inputs_target;
  if (host) origin = frame.host_origin;
  return host;
}

// Draws on the device itself come from its own generator: a note, once per op and line.
void note_device_draws(Tracer::State& s, Tracer::State::Locked& locked, const ThreadFrames& t, const Frame& frame,
                       const std::vector<at::Tensor>& outs) {
  for (const auto& out : outs) {
    if (out.device() != s.target() || locked.is_host_data(out) || locked.is_neutral(out)) continue;
    const Frame* user = t.user_op();
    const auto source = current_source().user;
    const DeviceDraw draw{std::string(user != nullptr ? user->name : frame.name), source};
    const bool seen = std::any_of(locked->draws.begin(), locked->draws.end(), [&](const DeviceDraw& d) {
      return d.op == draw.op && d.source == draw.source;
    });
    if (!seen) {
      locked->draws.push_back(draw);
      Finding f;
      f.kind = finding_kind::kDeviceRandom;
      f.severity = Severity::kNote;
      f.op = draw.op;
      f.scopes = t.scopes();
      f.source = draw.source;
      f.device = device_label(s.target());
      f.message = fmt::format("{} draws random numbers on {} from the device's own generator: they "
                              "differ from the CPU's by design, so parity is not compared",
                              draw.op, device_label(s.target()));
      locked->findings.add(f);
    }
    return;
  }
}

// An output of `frame` that is device data: computed from device data, made
// by a factory for the target, or moved there.
bool device_made(const Frame& frame) {
  // A factory the code called with the CPU named is no proof: `device=x.device` and
  // `device=sampler.low.device` read alike (the front end marks what it knows).
  const bool for_target = frame.factory_side && *frame.factory_side == Side::kTarget && !frame.user_factory;
  return frame.inputs_target || for_target || (frame.move_to && *frame.move_to == Side::kTarget);
}

// Host data made inside a declared hand-over is the subject's purpose.
std::shared_ptr<const Origin> declared(const ThreadFrames& t, std::shared_ptr<const Origin> origin) {
  if (!t.in_scope(kHostHandoverScope)) return origin;
  auto o = origin ? std::make_shared<Origin>(*origin) : std::make_shared<Origin>();
  o->declared = true;
  return o;
}

// Device data copied home by `frame`'s op: where, for the finding that
// names the line (Note [Making and meeting lines]).
std::shared_ptr<const Origin> copied_home(const ThreadFrames& t, const Frame& frame, const SourcePoint& here) {
  auto o = std::make_shared<Origin>();
  o->made = Origin::Made::kCopiedHome;
  const Frame* user = t.user_op();
  o->op = std::string(user != nullptr ? user->name : frame.name);
  o->source = here.user;
  o->scopes = t.scopes();
  return o;
}

// Note [The tracer's fast path]: device data made of device data alone, on an accelerator.
bool nothing_to_record(const Tracer::State& s, const Frame& frame, c10::ArrayRef<c10::IValue> outputs) {
  if (s.target().is_cpu() || !frame.inputs_target || frame.inputs_host || frame.inputs_neutral || frame.foreign_origin ||
      frame.move_to || frame.factory_side || frame.info->random) {
    return false;
  }
  return std::all_of(outputs.begin(), outputs.end(), [&](const c10::IValue& v) {
    return each_tensor(v, [&](const at::Tensor& t) { return t.device() == s.target(); });
  });
}

// Note [A library op's result]: an op of a library's own (torchvision::nms, a C++ extension's)
// given device data alone returns its result there: a CUDA kernel allocates on its input's
// device. One that hands back host indices works on a GPU while they only index device data
// (`x[idx]` moves them), so downstream code passes until it gathers or concatenates with them; one
// that allocates on the current device returns on another index. Either is the op's bug, named at
// the op, on an accelerator row (on the cpu row every result is on the CPU).
void judge_library_result(Tracer::State& s, const ThreadFrames& t, const Frame& frame, const at::RecordFunction& fn) {
  if (s.target().is_cpu() || s.inferring() || !frame.inputs_target || frame.inputs_host || frame.info->factory ||
      frame.info->device_index >= 0 || frame.info->move) {
    return;
  }
  const auto& base = frame.info->base;
  const auto ns = base.substr(0, base.find("::"));
  if (ns == base || ns == "aten" || ns == "prim" || ns == "profiler" || ns == "devparity") return;
  std::optional<c10::Device> elsewhere;
  for (const auto& v : last(fn.outputs(), frame.info->num_returns)) {
    each_tensor(v, [&](const at::Tensor& out) {
      if (!elsewhere && out.device() != s.target() && !out.unsafeGetTensorImpl()->is_wrapped_number()) {
        elsewhere = out.device();
      }
      return true;
    });
  }
  if (!elsewhere) return;
  auto f = make(finding_kind::kWrongDeviceOutput, Severity::kError, frame.info->name,
                fmt::format("{} was given data on {} and returned its result on {}: a device op's result "
                            "belongs on its input's device, where a CUDA kernel allocates it",
                            frame.info->name, device_label(s.target()), device_label(*elsewhere)),
                &*elsewhere);
  f.scopes = t.scopes();
  f.source = current_source().user;
  s.lock()->findings.add(f);
}

// Records what an op judged (or a composite) made; keeps what it wrote in place.
void record_outputs(Tracer::State& s, const ThreadFrames& t, const Frame& frame, const at::RecordFunction& fn) {
  const auto outputs = last(fn.outputs(), frame.info->num_returns);
  if (nothing_to_record(s, frame, outputs)) return;
  std::vector<at::Tensor> outs;
  for (const auto& v : outputs) {
    each_tensor(v, [&](const at::Tensor& t) {
      outs.push_back(t);
      return true;
    });
  }
  if (outs.empty()) return;
  // Device data going home is named by its line, asked before the lock (a
  // Python locator takes the interpreter's lock).
  const bool homeward = frame.inputs_target && std::any_of(outs.begin(), outs.end(), [&](const at::Tensor& o) {
                          return o.device().is_cpu() && (!s.target().is_cpu() || (frame.move_to && *frame.move_to == Side::kHost));
                        });
  const auto here = homeward ? current_source() : SourcePoint{};
  auto locked = s.lock();
  for (const auto& out : outs) {
    if (storage_of(out) == nullptr) continue;
    if (auto* r = locked->records.find(out)) {
      if (frame.move_to && frame.info->base != "aten::copy_" && !frame.literal_on_host) {
        note_returned_input(s, frame, out, *r, [&] { return copied_home(t, frame, here); });
      }
      // A host buffer the op filled with device data (`out.copy_(x)`,
      // `out[i] = x`): on the cpu row, a CPU result of CPU input.
      if (r->host && frame.inputs_target && s.target().is_cpu()) r->filled = true;
      if (r->host && frame.info != nullptr && frame.info->writes) {
        r->written = true;
        r->drawn = r->drawn || frame.info->random;
      }
      continue;
    }
    std::shared_ptr<const Origin> origin;
    if (new_output_on_host(s, frame, out, origin)) {
      if (homeward && origin && origin->made == Origin::Made::kCopiedHome && origin->source.empty()) {
        origin = copied_home(t, frame, here);
      }
      auto* r = locked.remember(out, true, declared(t, std::move(origin)));  // Note [Recorded storages]
      if (frame.info != nullptr && frame.info->random) r->drawn = true;  // randn with no device
    } else if (origin && s.inferring()) {
      locked.remember(out, false, std::move(origin))->provisional = s.rules().positive;  // made before the target is known
    } else if (frame.foreign_origin && out.device() != s.target() && !out.device().is_cpu()) {
      locked.remember(out, false, frame.foreign_origin);  // kept state's results stay its own
    } else if (s.rules().positive && !s.inferring() && out.device() == s.target() && s.target().is_cpu() &&
               device_made(frame)) {
      // (While the target is still being inferred there is no device data on the CPU: the
      // code named no device.)
      locked.remember(out, false, nullptr);  // Note [Neutral data]: device data is what is proven
    }
  }
  if (frame.info->random) note_device_draws(s, locked, t, frame, outs);
}

}  // namespace

// Reads an op's tensors; classifies it when it is judged (composites only
// note what they received, for the outputs their callees do not record).
void judge_start(Tracer::State& s, ThreadFrames& t, Frame& frame, const at::RecordFunction& fn) {
  const OpInfo& info = *frame.info;
  OpCall call;
  const Frame* user = t.user_op();
  call.rule = info.rule;
  const auto inputs = last(fn.inputs(), info.num_arguments);
  if (s.inferring() && frame.top) infer_target(s, info, inputs);
  if (frame.top) remember_forward_line(s, fn, inputs);
  const auto origins = read_tensors(s, frame, inputs, call);
  if (frame.top) {
    t.top_devices.clear();
    for (const auto& tensor : call.tensors) {
      if (std::find(t.top_devices.begin(), t.top_devices.end(), tensor.device) == t.top_devices.end()) {
        t.top_devices.push_back(tensor.device);
      }
    }
  }
  call.factory = info.factory;
  if (info.device_index >= 0 && static_cast<size_t>(info.device_index) < inputs.size()) {
    call.has_device_argument = true;
    const auto& d = inputs[info.device_index];
    if (d.isDevice()) call.device = d.toDevice();
    if (call.device && !call.device->has_index()) call.current = current_device(call.device->type());
  }
  call.target_inferred = s.infers_target();
  if (frame.role == Role::kJudged && nothing_to_classify(info, user, call, s.target())) return;
  call.op = user != nullptr ? user->name : frame.name;
  call.kernel = frame.name;
  if (info.factory) note_factory(s, t, frame, call);
  if (info.move) note_move(s, frame, call, origins.empty() ? nullptr : origins[0]);
  if (frame.role != Role::kJudged) return;

  int blamed = -1;
  auto found = classify(call, s.target(), &blamed);
  if (info.move && kept_state_moved(s, t, frame, call, origins, found, blamed)) return;
  if (found.empty()) return;
  // The literal's copy to the device costs what it must.
  if (frame.literal) drop_copies(found);
  // A maker is named where its tensor meets device data (a move is a cost, not a meeting).
  std::vector<std::pair<const TensorInfo*, std::shared_ptr<const Origin>>> makers;
  const bool met = std::any_of(found.begin(), found.end(),
                               [](const Finding& f) { return f.kind == finding_kind::kForeignDeviceInput; });
  if (met && blamed >= 0 && origins[blamed]) makers.emplace_back(&call.tensors[blamed], origins[blamed]);
  add_findings(s, t, std::move(found), makers, op_words(call));
}

void judge_end(Tracer::State& s, const ThreadFrames& t, const Frame& frame, const at::RecordFunction& fn) {
  if (frame.info != nullptr) judge_library_result(s, t, frame, fn);
  record_outputs(s, t, frame, fn);
}

}  // namespace devparity::tracing
