#pragma once
/// The "run" check: the runner's own verdict on whether the subject ran.

#include "harness/device/device.h"
#include "harness/model/results.h"
#include "harness/subject/execution.h"

#include <string>

namespace devparity {

/// What the "run" check asserts.
inline constexpr const char* kRunDescribe = "the subject runs on the device and returns a tensor";

/// The "run" verdict for a subject that threw `error` on `target`: a missing
/// kernel is a skip on meta, a failure when the subject runs on the
/// reference device but not on this one, and otherwise a skip (the subject
/// does not support the combination); a device mismatch or anything else is
/// a failure.
CheckOutcome failed_run_verdict(const ClassifiedError& error, const DeviceTarget& target,
                                bool on_reference_device, bool subject_runs_on_reference,
                                const std::string& reference_name);

/// The "run" verdict of `execution` on `target`: a pass with its timing and
/// output, or failed_run_verdict().
CheckOutcome run_verdict(const Execution& execution, const DeviceTarget& target, bool on_reference_device,
                         bool subject_runs_on_reference, const std::string& reference_name);

/// Note [Non-finite outputs]: NaN or Inf in an output is a warning
/// (non_finite_output) on every row, the reference's too: where every device
/// returns NaN, parity agrees and nothing else would say so. Not where the
/// input holds NaN or Inf itself, whose output should. Adds it to `run`, a
/// passing "run" verdict, with the count in its stats.
void warn_non_finite(const at::Tensor& output, const at::Tensor& input, const DeviceTarget& target, CheckOutcome& run);

}  // namespace devparity
