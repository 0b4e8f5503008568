#include "harness/trace/finding_kinds.h"

namespace devparity {

const std::vector<FindingKind>& finding_kinds() {
  using namespace finding_kind;
  static const std::vector<FindingKind> rows = {
      {kForeignDeviceInput, Severity::kError, "placement",
       "host data (or a tensor on another device) met device data in an op whose CUDA kernel refuses the mix "
       "(rules/device_rules.h: a CPU scalar to `mul` is fine, to `cat` it is not)"},
      {kImplicitDeviceFactory, Severity::kError, "placement",
       "a factory called with no device, whose tensor (host data) met device data or was returned"},
      {kForeignDeviceTarget, Severity::kError, "placement",
       "a factory or to() given an explicit device that is not the target: another accelerator, or the CPU for "
       "a tensor that then met device data or was returned"},
      {kDeviceWithoutIndex, Severity::kError, "placement",
       "a factory or to() given the target's device type without an index: it lands on the current device"},
      {kWrongDeviceOutput, Severity::kError, "placement", "the subject returned a tensor that is not on the target device"},
      {kStateOffDevice, Severity::kError, "placement",
       "registered state that is not on the target after the subject was moved there"},
      {kUnregisteredTensorState, Severity::kError, "placement",
       "a tensor the subject keeps that is neither a parameter nor a buffer, met by device data: moving the "
       "subject left it where it was made"},
      {kDeviceMismatchError, Severity::kError, "placement",
       "an op threw LibTorch's \"same device\" error (in any of its wordings)"},
      {kHostSync, Severity::kWarning, "placement",
       "the host waits for device data inside apply (item(), copies to the CPU, data-dependent shapes)"},
      {kHostToDeviceCopy, Severity::kWarning, "placement",
       "host data moved to the target inside apply, by the subject or by ATen (host indices): a copy on every "
       "call; literals and scalars are exempt"},
      {kDeviceDependentCode, Severity::kWarning, "placement",
       "the subject's code branches on the device it runs on (`x.is_cuda`): each device runs different code"},
      {kDeviceRandom, Severity::kNote, "placement",
       "a random op drew on the target device, from its own generator: the results differ from the CPU's by "
       "design (parity is not compared)"},
      {kAcceleratorRuntime, Severity::kError, "placement",
       "code on the cpu-only row (no accelerator runtime) called into it: pinned memory, a stream, "
       "torch.cuda's runtime"},
      {kUnsynchronizedAccess, Severity::kError, "placement",
       "two accesses of the same memory, one a write, on two vdev streams (or a stream and the host) with no "
       "event, wait or sync ordering them (the asynchronous vdev's race detector)"},
      {kNonFiniteOutput, Severity::kWarning, "run",
       "the output holds NaN or Inf where the input did not (every row, even where every device agrees: an "
       "all-NaN output is no answer)"},
  };
  return rows;
}

const FindingKind* find_finding_kind(std::string_view name) {
  for (const auto& row : finding_kinds()) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

}  // namespace devparity
