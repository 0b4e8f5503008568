#pragma once
/// Perturbed numerics: vdev computing with other legal arithmetic than the
/// CPU's, so that a transform whose result depends on the CPU's particular
/// rounding, summation order or tie order fails before a GPU sees it.
///
/// Note [Perturbed numerics]
/// vdev runs the CPU's kernels, so its results equal the CPU's bit for bit
/// and a comparison of the two can never show what a GPU's own kernels do
/// differently. A switch is one documented, legal alternative for a set of
/// ops (round half away from zero where the CPU rounds half to even; TF32
/// inputs to matmuls and convolutions; another summation order; the other
/// order of ties in sort and topk; CUDA's float32 resampling arithmetic): with
/// it on, vdev runs the switch's kernel for those ops instead of the CPU's.
/// Each call also runs the CPU's kernel and compares, so a trial knows which
/// switches moved which ops' values (Execution::perturbed); a check that
/// fails under them names them. Only functional, in-place and out= forms
/// whose results are the op's returns are replaced; what a switch leaves
/// alone it says in its doc. A switch is registered once (builtins.cpp);
/// vdev's own are in perturb_switches.cpp. A switch on for an op outranks
/// CUDA's model of it (Note [CUDA's arithmetic on vdev]).

#include "harness/vdev/kernel_replacement.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace devparity::vdev::perturb {

using vdev::CpuKernel;

struct Switch {
  std::string name;               ///< "tf32": the token of --vdev-perturb
  std::string doc;                ///< what it does and why it is legal, for `devparity list` and the docs
  std::vector<std::string> ops;   ///< "aten::round", "aten::round.decimals", ...: schema names with overload
  ReplacementKernel kernel;  ///< the op's results under the switch (vdev/kernel_replacement.h)
  /// For ops the backend runs itself (convolution): the inputs as this
  /// switch hands them to the computation; null: none.
  std::function<std::vector<at::Tensor>(const std::string& op, std::vector<at::Tensor> inputs)> inputs;
};

/// vdev's own switches: round_half_away, tf32, reduction_order, tie_order,
/// linspace_formula, cuda_resample.
std::vector<Switch> builtin_switches();
/// Registers a switch (builtins.cpp); a second of the same name throws.
void add(Switch s);
/// Every registered switch, in registration order.
const std::vector<Switch>& switches();
/// "all" or a comma list of names; throws std::invalid_argument naming `option`
/// and the known names for anything else.
std::vector<std::string> parse(const std::string& text, const std::string& option);

/// The switches a run asked for (--vdev-perturb; vdev's mode: vdev/mode.h;
/// empty: none): every run of a subject on vdev opens a Scope with them.
std::vector<std::string> session();

/// Turns `names` on for vdev's work until destroyed, and counts what they
/// moved (process-wide: one trial at a time).
class Scope {
 public:
  explicit Scope(const std::vector<std::string>& names);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  /// Per switch, how many op calls it gave other values than the CPU's.
  std::map<std::string, int64_t> moved() const;
};

/// Runs `op` on the host on `stack` (CPU tensors): the kernel of the switch
/// that is on for it, or else CUDA's model of it (vdev/cuda_arithmetic.h),
/// or else the CPU's.
void run_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);

/// An op the backend computes itself (`name`, e.g. convolution): `compute`
/// on the inputs as the switch that is on for it makes them.
at::Tensor run_unboxed(const std::string& name, const std::vector<at::Tensor>& inputs,
                       const std::function<at::Tensor(const std::vector<at::Tensor>&)>& compute);

}  // namespace devparity::vdev::perturb
