#pragma once
/// Each thread's stack of scopes and ops while a trace runs (internal to
/// trace/; Note [Tracer threads]): what the callbacks push and pop, and what
/// judging an op reads of the ops around it.

#include "harness/trace/active_tracer.h"
#include "harness/trace/op_classification.h"
#include "harness/trace/op_info.h"
#include "harness/trace/provenance.h"
#include "harness/trace/scope.h"

#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace devparity::tracing {

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

struct ThreadFrames {
  uint64_t owner = 0;  // Tracer::State::generation
  std::vector<Frame> frames;
  int op_depth = 0;
  int opaque_depth = 0;                  // 1 while a judged op runs, plus the records inside it
  std::vector<c10::Device> top_devices;  // devices of the running top-level op's tensors

  bool in_scope(const char* name) const {
    if (ActiveTracer::handover_depth() > 0 && std::string_view(name) == kHostHandoverScope) return true;
    for (const auto& f : frames) {
      if (f.role == Role::kScope && f.name == name) return true;
    }
    return false;
  }

  std::vector<std::string> scopes() const {
    std::vector<std::string> out;
    for (const auto& f : frames) {
      // A scripted method records itself twice (the Method, then its function).
      if (f.role == Role::kScope && !f.hidden && (out.empty() || out.back() != f.name)) out.emplace_back(f.name);
    }
    return out;
  }

  // The op frame that encloses `frame` (an op frame of this thread), if any.
  const Frame* parent_op(const Frame& frame) const {
    const Frame* parent = nullptr;
    for (const auto& f : frames) {
      if (&f == &frame) return parent;
      if (f.role == Role::kComposite || f.role == Role::kJudged) parent = &f;
    }
    return nullptr;
  }

  // The subject's op: the outermost op frame.
  const Frame* user_op() const {
    for (const auto& f : frames) {
      if (f.role != Role::kScope) return &f;
    }
    return nullptr;
  }
};

}  // namespace devparity::tracing
