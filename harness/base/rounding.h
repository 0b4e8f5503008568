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
///
/// Note [Intermediate rounding]: a kernel that rounds between its stages
/// (LibTorch's CPU uint8 resize rounds after its horizontal pass) can differ
/// by 1 from one that rounds once, away from any tie of its final value. It
/// also notes the value it would have rounded without the intermediate step,
/// so such a +-1 is told apart: the direct value lies on the other side of
/// the boundary, or at it.
///
/// Note [Sampling ties]: nearest-neighbour sampling at an exact midpoint
/// (a rotation by -45 degrees about an integer centre) takes either source
/// depending on the last bit of the coordinate, so any difference there,
/// however large, is a tie in the choice, not in the arithmetic. A kernel
/// notes where its coordinates lie within kSamplingTieEpsilon of a midpoint.

#include <ATen/core/Tensor.h>

#include <string>

namespace devparity {

/// Distance of a coordinate from a midpoint, in pixels, within which nearest
/// sampling is a tie: float32 coordinates of images up to 2^12 pixels carry
/// errors near 2^-11 from the order of their arithmetic, and a real
/// misplacement is off by a pixel.
constexpr double kSamplingTieEpsilon = 1e-3;

/// How a value became an integer.
enum class Rounding {
  kHalfEven,  ///< at::round, rint on GPUs: the boundary between k and k+1 is k + 0.5
  kHalfUp,    ///< fixed point, floor(v + 0.5): the boundary is k + 0.5
  kTruncate,  ///< a float-to-integer cast of a non-negative value: the boundary is k + 1
};

/// "half to even", "half up" or "truncation".
std::string rounding_name(Rounding rounding);

/// An integer tensor's values before rounding, in its own units, and the
/// elements of any output whose value hangs on a tie in an earlier choice.
struct Unrounded {
  at::Tensor values;           ///< float64 on the CPU, the output's shape; undefined when unknown
  Rounding rounding = Rounding::kHalfEven;
  double error_bound = 0.0;    ///< how far `values` may be from the exact value (fixed point)
  /// Note [Intermediate rounding]: where the transform rounded between two
  /// stages (a uint8 intermediate), the value it would have rounded without
  /// that (float64 on the CPU, the output's shape); undefined otherwise.
  at::Tensor direct;
  /// Per element, added to error_bound (float64 on the CPU); undefined when none.
  at::Tensor error;

  /// The allowance around a boundary for element i, beyond a tie epsilon.
  double error_at(int64_t i) const;
  /// Note [Sampling ties]: bool on the CPU, the output's shape: true where
  /// the output took one of two sources at an exact midpoint (nearest
  /// neighbour); undefined when there are none to report.
  at::Tensor ambiguous;

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

/// Adds to the last note (made for `rounded`) what a kernel with
/// approximate weights and an intermediate rounding knows (Note
/// [Intermediate rounding]): `direct`, the value without the intermediate
/// rounding (may be undefined), and `error`, per element, how far the noted
/// values are from exact arithmetic on the same intermediate (added to the
/// error bound). Both float64, the output's shape, any device. Returns `rounded`.
const at::Tensor& note_intermediate(const at::Tensor& rounded, const at::Tensor& direct, const at::Tensor& error);

/// Records that the elements of `output` where `ambiguous` (bool,
/// broadcastable to it) is true picked a source at an exact midpoint (Note
/// [Sampling ties]). For an integer output, call it after note_unrounded();
/// a later note_unrounded() for another tensor forgets it. Returns `output`.
const at::Tensor& note_ambiguous(const at::Tensor& output, const at::Tensor& ambiguous);

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

  /// What was noted for `output` when the last noted tensor is `output`
  /// itself (or a view of all of its elements in the same order), brought to
  /// the CPU (values as float64); otherwise nothing is known.
  Unrounded of(const at::Tensor& output) const;

 private:
  friend const at::Tensor& note_unrounded(const at::Tensor&, const at::Tensor&, Rounding, const at::Tensor&);
  friend const at::Tensor& note_intermediate(const at::Tensor&, const at::Tensor&, const at::Tensor&);
  friend const at::Tensor& note_ambiguous(const at::Tensor&, const at::Tensor&);
  at::Tensor rounded_, values_, error_bound_, direct_, error_, ambiguous_;
  Rounding rounding_ = Rounding::kHalfEven;
  UnroundedCapture* previous_ = nullptr;
};

}  // namespace devparity
