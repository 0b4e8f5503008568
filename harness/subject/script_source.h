#pragma once
/// What TorchScript code says about itself: source lines for findings, and a
/// static scan for code that branches on the device it runs on.

#include "harness/trace/finding.h"
#include "harness/trace/tracer.h"

#include <set>
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

/// "file.py:42:9": the exact expression a range starts at (SourcePoint::site).
std::string site(const torch::jit::SourceRange& range);

/// Where the interpreter is on this thread: `user` is the innermost frame
/// outside PyTorch's own files (a finding in torch.nn.functional.pad names
/// the subject's line that called it), `site` the node running. Empty
/// outside TorchScript. The tracer's SourceLocator.
SourcePoint current_location();

/// device_dependent_code findings, one per site: comparisons of a tensor's
/// device (or device type) with anything but another tensor's device, and
/// device predicates (`x.is_cuda`, `x.is_cpu`, ...), in every function of the
/// module's compilation unit. They are warnings: no simulated device can
/// vouch for the branch it does not take.
std::vector<Finding> device_dependent_code(const torch::jit::Module& module);

/// The sites (site()) of factory calls in every function of the module
/// (`torch.tensor([[mean]])`, `torch.zeros(3, device=x.device)`), and those
/// of them written with no device, which LibTorch lowers to an explicit CPU
/// device the tracer could not tell from a deliberate one
/// (TraceSeeds::factory_sites, deviceless_sites, host_sites).
struct FactorySites {
  std::set<std::string> all;
  std::set<std::string> deviceless;
  /// Factories and moves whose device is the CPU spelled out in the code
  /// (`device=torch.device("cpu")`, `.cpu()`, `.to("cpu")`).
  std::set<std::string> on_host;
};
FactorySites factory_sites(const torch::jit::Module& module);

}  // namespace devparity::torchscript
