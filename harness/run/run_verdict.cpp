#include "harness/run/run_verdict.h"

#include "harness/base/compare.h"
#include "harness/base/dtype.h"
#include "harness/trace/finding.h"

#include <c10/core/DeviceType.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace devparity {

CheckOutcome run_verdict(const Execution& e, const DeviceTarget& target, bool on_reference_device,
                         bool subject_runs_on_reference, const std::string& reference_name) {
  if (!e.ran) {
    return failed_run_verdict(e.error, target, on_reference_device, subject_runs_on_reference,
                              reference_name);
  }
  CheckOutcome c;
  c.name = "run";
  c.describe = kRunDescribe;
  c.status = Status::kPass;
  c.message = fmt::format("ran on {} in {:.3f} ms", target.resolved_name(), e.duration_ms);
  c.stats = {{"duration_ms", e.duration_ms},
             {"output_shape", e.output.sizes().vec()},
             {"output_dtype", dtype_name(e.output.scalar_type())},
             {"output_device", device_label(e.output_device)}};
  return c;
}

CheckOutcome failed_run_verdict(const ClassifiedError& err, const DeviceTarget& target,
                                bool on_reference_device, bool subject_runs_on_reference,
                                const std::string& reference_name) {
  CheckOutcome c;
  c.name = "run";
  c.describe = kRunDescribe;
  const auto device = target.resolved_name();
  c.stats = {{"error_kind", failure_kind_name(err.kind)}};
  if (!err.op.empty()) c.stats["op"] = err.op;
  if (target.device) c.stats["device_type"] = c10::DeviceTypeName(target.device->type(), /*lower_case=*/true);
  switch (err.kind) {
    case FailureKind::kUnsupported:
      if (!target.has_values()) {
        c.status = Status::kSkip;
        c.message = fmt::format("unsupported on meta{}: {}", err.op.empty() ? "" : " (" + err.op + ")",
                                err.message);
      } else if (target.simulated()) {
        // The simulator's gap, not the subject's: vdev runs the CPU's kernels.
        c.status = Status::kSkip;
        c.message = fmt::format("unsupported on the simulated {}{}: {}", device,
                                err.op.empty() ? "" : " (" + err.op + ")", err.message);
      } else if (!on_reference_device && subject_runs_on_reference) {
        // A kernel one device has and another lacks is a parity failure
        // (pytorch/vision#7671: antialiased bilinear fails on CUDA only).
        c.status = Status::kFail;
        c.message = fmt::format("{} runs it but {} does not: {}", reference_name, device, err.message);
      } else {
        c.status = Status::kSkip;
        c.message = fmt::format("unsupported on {}: {}", device, err.message);
      }
      break;
    case FailureKind::kDeviceMismatch:
      // The placement check carries the device_mismatch_error finding.
      c.status = Status::kFail;
      c.message = fmt::format("device mismatch{}: {}", err.op.empty() ? "" : " in " + err.op,
                              err.message);
      break;
    case FailureKind::kOutOfMemory:
      c.status = Status::kError;
      if (err.requested_bytes >= 0) c.stats["requested_bytes"] = err.requested_bytes;
      c.message = err.requested_bytes >= 0
                      ? fmt::format("out of memory on {}: an allocation of {} bytes ({:.2f} GiB) failed: {}",
                                    device, err.requested_bytes,
                                    static_cast<double>(err.requested_bytes) / 1073741824.0, err.message)
                      : fmt::format("out of memory on {}: {}", device, err.message);
      break;
    case FailureKind::kDeviceError:
      c.status = Status::kError;
      c.message = fmt::format("device error on {}: {}", device, err.message);
      break;
    case FailureKind::kException:
      c.status = Status::kFail;
      c.message = fmt::format("threw on {}: {}", device, err.message);
      break;
  }
  return c;
}

void warn_non_finite(const at::Tensor& output, const at::Tensor& input, const DeviceTarget& target, CheckOutcome& c) {
  if (!target.has_values() || !output.defined() || c.status != Status::kPass) return;
  const auto bad = non_finite_of(output);
  c.stats["output_non_finite"] = bad.count;
  if (bad.count == 0 || (input.defined() && non_finite_of(input).count > 0)) return;
  Finding f;
  f.kind = finding_kind::kNonFiniteOutput;
  f.severity = Severity::kWarning;
  f.device = target.resolved_name();
  f.shape = output.sizes().vec();
  f.dtype = dtype_name(output.scalar_type());
  f.message = fmt::format("the output holds {} NaN or Inf element(s) of {}; the first, at [{}], is {}", bad.count,
                          output.numel(), fmt::join(bad.first, ","), number_text(bad.first_value));
  c.findings.push_back(f.to_json());
  c.message += "; warning: " + f.message;
}

}  // namespace devparity
