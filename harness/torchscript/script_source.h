#pragma once
/// What TorchScript code says about itself: source lines for findings, and a
/// static scan for code that branches on the device it runs on.

#include "harness/trace/finding.h"

#include <string>
#include <vector>

namespace torch::jit {
struct Module;
struct SourceRange;
}  // namespace torch::jit

namespace devparity::torchscript {

/// "file.py:42" for a range of TorchScript code: the original Python source
/// when the archive kept its debug information, else the serialized code;
/// "" when the range has no file.
std::string location(const torch::jit::SourceRange& range);

/// The source line the interpreter is executing on this thread, innermost
/// call first; "" outside TorchScript. The tracer's SourceLocator.
std::string current_location();

/// device_dependent_code findings, one per site: comparisons of a tensor's
/// device (or device type) with anything but another tensor's device, and
/// device predicates (`x.is_cuda`, `x.is_cpu`, ...), in every function of the
/// module's compilation unit.
std::vector<Finding> device_dependent_code(const torch::jit::Module& module);

}  // namespace devparity::torchscript
