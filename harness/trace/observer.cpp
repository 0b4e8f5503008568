// The tracer's callbacks (Note [What the tracer sees] in tracer.h): on each
// op's start and end, this thread's frames of scopes and ops; each op frame
// is judged in trace/judge.cpp.
#include "harness/trace/active_tracer.h"
#include "harness/trace/frames.h"
#include "harness/trace/judge.h"
#include "harness/trace/tracer_state.h"

#include "harness/device/device.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <exception>

namespace devparity::tracing {
namespace {

using op_kinds::is_devparity_op;
using op_kinds::starts_with;

ThreadFrames& frames_for(const Tracer::State* s) {
  thread_local ThreadFrames t;
  if (t.owner != s->generation()) t = ThreadFrames{s->generation(), {}, 0, 0, {}};
  return t;
}

// The top-level op an exception left, with the devices its tensors were on.
void note_failed(Tracer::State& s, const ThreadFrames& t, const Frame& frame) {
  // Asked before the lock: a Python locator takes the interpreter's lock.
  const auto source = current_source().user;
  const auto target = s.target();
  auto locked = s.lock();
  auto& failed = locked->failed;
  if (!failed.op.empty()) return;
  failed.op = std::string(frame.name);
  failed.scopes = t.scopes();
  failed.source = source;
  // "vdev:1 and vdev:0": the target first, then the others the op received.
  std::vector<std::string> labels = {device_label(target)};
  for (const auto& d : t.top_devices) {
    if (d != target) labels.push_back(device_label(d));
  }
  if (labels.size() > 1) failed.device = fmt::format("{}", fmt::join(labels, " and "));
}

}  // namespace

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  auto* s = ActiveTracer::get().state();
  if (s == nullptr) return nullptr;
  // Callbacks must never throw into the dispatcher.
  try {
    auto& t = frames_for(s);
    if (t.opaque_depth > 0) {
      // Inside an op already judged: ATen's own business (and scopes of no
      // interest), counted, not stacked.
      ++t.opaque_depth;
      return nullptr;
    }
    // Only dispatcher ops have an operator name; other FUNCTION-scope records
    // (the autograd engine's "evaluate_function: SumBackward0") are scopes.
    const OpInfo* info = fn.scope() == at::RecordScope::FUNCTION ? op_info(fn) : nullptr;
    if (info == nullptr) {
      Frame scope;
      scope.name = fn.name();
      // devparity's own ops (the Python front's bookkeeping) are no part of the subject.
      scope.hidden = starts_with(scope.name, "autograd::engine::evaluate_function") || is_devparity_op(scope.name);
      if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {  // Note [Backward lines]
        scope.forward_seq = fn.seqNr();
        scope.forward_thread = fn.forwardThreadId();
      }
      t.frames.push_back(std::move(scope));
      return nullptr;
    }
    Frame frame;
    frame.info = info;
    frame.name = info->name;
    frame.top = t.op_depth == 0;
    frame.role = info->composite ? Role::kComposite : Role::kJudged;
    t.frames.push_back(std::move(frame));
    ++t.op_depth;
    if (t.frames.back().top) ++s->lock()->ops;
    judge_start(*s, t, t.frames.back(), fn);
    if (t.frames.back().role == Role::kJudged) ++t.opaque_depth;
  } catch (...) {
  }
  return nullptr;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext*) {
  auto* s = ActiveTracer::get().state();
  if (s == nullptr) return;
  try {
    auto& t = frames_for(s);
    // A judged op holds opaque_depth at 1; what ran inside it counted above.
    if (t.opaque_depth > 1) {
      --t.opaque_depth;
      return;
    }
    if (t.frames.empty()) return;
    const Frame& frame = t.frames.back();
    if (frame.role == Role::kScope) {
      t.frames.pop_back();
      return;
    }
    if (frame.role == Role::kJudged) --t.opaque_depth;
    // Note [What the tracer sees]: an end during unwinding means this op threw.
    if (std::uncaught_exceptions() > 0) {
      if (frame.top) note_failed(*s, t, frame);
    } else {
      judge_end(*s, t, frame, fn);
    }
    t.frames.pop_back();
    --t.op_depth;
  } catch (...) {
  }
}

// Where the asynchronous vdev's work is enqueued: the scopes and source line
// of the op this thread is in (its race findings name it).
std::string vdev_site() {
  auto* s = ActiveTracer::get().state();
  if (s == nullptr) return current_source().user;
  const auto& t = frames_for(s);
  std::string out;
  for (const auto& scope : t.scopes()) out += (out.empty() ? "" : " > ") + scope;
  const auto source = current_source().user;
  if (!source.empty()) out += (out.empty() ? "" : " at ") + source;
  return out;
}

}  // namespace devparity::tracing
