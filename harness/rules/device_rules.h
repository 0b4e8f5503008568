#pragma once
/// CUDA's mixed-device rules, op by op: which tensors an op accepts from
/// another device than its own, which it moves there itself, and the error
/// it raises otherwise, worded as LibTorch words it. The simulated
/// accelerator enforces them on its tensors and the tracer applies them to
/// where each tensor's data lives, so both are exactly as strict as CUDA: no
/// false alarm on `x[cpu_mask]`, no miss on `cat([x, cpu_tensor])`.
///
/// Note [Device rule sources]
/// The rules come from two tables embedded at build time for the LibTorch
/// found (cmake/devparity.cmake, dp_device_rules): the generated same-device
/// check of every op registered for CUDA (the argument list and the wrapper
/// name its message quotes), and the ops that decide for themselves
/// (TensorIterator and its CPU scalars, indexing, masked_fill, copies).
/// Composite ops check nothing: the ops they call decide.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace devparity::device_rules {

/// How an op treats tensors from different devices.
enum class Kind {
  kComposite,          ///< checks nothing itself; the ops it calls decide
  kExactSame,          ///< generated check: every listed argument on one device
  kIterator,           ///< TensorIterator: one device, no CPU tensor at all
  kIteratorCpuScalar,  ///< TensorIterator: one CPU 0-dim input allowed
  kIndex,              ///< indices on the CPU (moved) or on self's device
  kIndexPut,           ///< indices anywhere (moved); 0-dim values anywhere (moved)
  kMaskedFill,         ///< mask on self's device; a 0-dim value anywhere
  kIndexFill,          ///< index on self's device; a 0-dim value anywhere
  kZeroDimMoved,       ///< 0-dim tensors from anywhere are moved
  kCpuScalarAt,        ///< only the named argument may be a CPU 0-dim tensor
  kZeroDimAny,         ///< the named argument (or every one: "*") is read as a number
  kAny,                ///< no constraint (copies, shape-only ops)
  kSetStorage,         ///< the storage must be on self's device
};

/// The rule of one op.
struct OpRule {
  Kind kind = Kind::kIteratorCpuScalar;
  std::string wrapper;                ///< kExactSame: "wrapper__index_select" (message suffix)
  std::vector<std::string> checked;   ///< kExactSame: arguments checked, in order
  std::string argument;               ///< kCpuScalarAt / kZeroDimAny: the argument named
  bool known = false;                 ///< false: the op is in neither table (a custom op)
  bool structured = false;            ///< a structured CUDA kernel (its functional form checks first)
};

/// The rule of an op by its qualified name ("aten::mul.Tensor", "mul.Tensor",
/// "torchvision::roi_align"). Ops in neither table (custom operators) get a
/// lenient TensorIterator rule: one device, CPU 0-dim scalars allowed.
const OpRule& rule_for(std::string_view qualified_name);

/// Ops with a generated check on a structured kernel ("cat", "clamp.Tensor",
/// their out= forms included). Out-of-tree backends reach their out= form
/// through a composite that has already allocated `out`, so a backend that
/// wants CUDA's wording must judge the functional form itself.
std::vector<std::string> structured_checked_ops();

/// The LibTorch release whose rules are built in ("1.13", "2.6").
const char* release();

/// One tensor an op receives, as the rules see it.
struct Operand {
  std::string_view argument;  ///< the schema's name for it ("self", "indices", "out")
  int place = 0;         ///< equal for tensors on the same device
  bool host = false;     ///< on the CPU
  std::string label;     ///< "cpu", "vdev:1", "cuda:0", for messages
  int64_t dim = 0;       ///< number of dimensions
  bool output = false;   ///< written by the op (in-place self, out=)
};

/// What the op does with its operands.
struct Verdict {
  bool accepted = true;
  int offender = -1;        ///< rejected: the operand whose device broke the rule
  std::vector<int> moved;   ///< accepted: operands ATen moves to the op's device itself
  std::string message;      ///< rejected: LibTorch's error text
  int device_of = -1;       ///< the operand whose device the op runs on (-1: none)
};

/// Judges `operands` (in schema order, lists flattened) under `rule` for the
/// op `name` ("mul.Tensor": used in messages as LibTorch uses it).
Verdict judge(const OpRule& rule, const std::vector<Operand>& operands);

}  // namespace devparity::device_rules
