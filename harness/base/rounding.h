#pragma once
/// The value an integer output had before it was rounded, so that a +-1
/// difference can be told apart: at a rounding tie (two correct kernels may
/// land on either side) or anywhere else (a real difference).
///
/// Note [Unrounded values]: a reference transform converts to uint8 in one
/// place per path and hands the value it rounded to note_unrounded(); while
/// an UnroundedCapture is open on the thread, the last such value is kept,
/// and execute() keeps it when the subject's output is that tensor. Nothing
/// is kept, and nothing costs more than a thread-local read, otherwise.

#include <ATen/core/Tensor.h>

#include <string>

namespace devparity {

/// How a value became an integer.
enum class Rounding {
  kHalfEven,  ///< at::round, rint on GPUs: the boundary between k and k+1 is k + 0.5
  kHalfUp,    ///< fixed point, floor(v + 0.5): the boundary is k + 0.5
  kTruncate,  ///< a float-to-integer cast of a non-negative value: the boundary is k + 1
};

/// "half to even", "half up" or "truncation".
std::string rounding_name(Rounding rounding);

/// An integer tensor's values before rounding, in its own units.
struct Unrounded {
  at::Tensor values;           ///< float64 on the CPU, the output's shape; undefined when unknown
  Rounding rounding = Rounding::kHalfEven;
  double error_bound = 0.0;    ///< how far `values` may be from the exact value (fixed point)

  bool known() const { return values.defined(); }
  /// The boundary between the integers `low` and `low + 1` under this rounding.
  double boundary(double low) const { return rounding == Rounding::kTruncate ? low + 1.0 : low + 0.5; }
};

/// Records that `rounded` was made from `values` by `rounding` (Note
/// [Unrounded values]); `error_bound`, a one-element tensor on any device,
/// bounds |values - exact value| where `values` is itself approximate (fixed
/// point). Returns `rounded`, so a kernel can end with
/// `return note_unrounded(v.round().clamp(0, 255).to(at::kByte), v, Rounding::kHalfEven);`.
/// `values` must not be written to afterwards.
const at::Tensor& note_unrounded(const at::Tensor& rounded, const at::Tensor& values, Rounding rounding,
                                 const at::Tensor& error_bound = at::Tensor());

/// True while a capture is open on this thread: a kernel computes an error
/// bound only then.
bool unrounded_wanted();

/// Keeps the values noted on this thread while it is open (not nestable).
class UnroundedCapture {
 public:
  UnroundedCapture();
  ~UnroundedCapture();
  UnroundedCapture(const UnroundedCapture&) = delete;
  UnroundedCapture& operator=(const UnroundedCapture&) = delete;

  /// The unrounded values of `output` when the last noted tensor is `output`
  /// itself (or a view of all of its elements in the same order), brought to
  /// the CPU as float64; otherwise nothing is known.
  Unrounded of(const at::Tensor& output) const;

 private:
  friend const at::Tensor& note_unrounded(const at::Tensor&, const at::Tensor&, Rounding, const at::Tensor&);
  at::Tensor rounded_, values_, error_bound_;
  Rounding rounding_ = Rounding::kHalfEven;
  UnroundedCapture* previous_ = nullptr;
};

}  // namespace devparity
