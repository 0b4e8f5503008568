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

}  // namespace devparity
