#pragma once
/// Judging an op by CUDA's device rules and recording what it made (internal
/// to trace/; Note [What the tracer sees] and Note [Device data and host
/// data] in tracer.h): the callbacks (trace/observer.cpp) hand each op frame
/// here as it starts and as it returns.

#include "harness/trace/frames.h"
#include "harness/trace/tracer_state.h"

#include <ATen/record_function.h>

namespace devparity::tracing {

/// An op frame's start: reads its tensors (inferring the target from them
/// while it is unknown), notes what its callees need to know, and judges it
/// when its role is kJudged.
void judge_start(Tracer::State& s, ThreadFrames& t, Frame& frame, const at::RecordFunction& fn);

/// An op frame that returned: a library op's result off its input's device,
/// and the records of what it made or wrote (Note [Recorded storages]).
void judge_end(Tracer::State& s, const ThreadFrames& t, const Frame& frame, const at::RecordFunction& fn);

}  // namespace devparity::tracing
