#pragma once
/// NumericTransform: a deterministic transform whose parameters are named
/// numbers or lists of numbers, defined by a table and one function (internal
/// to harness/transforms). The colour family is mostly this shape; writing
/// each as a Config struct repeated the same reading and writing code.

#include "harness/subject/transform.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace devparity {

/// One parameter: a number in [lo, hi] (an integer when `integer`), a
/// boolean, or with `list`, an array of such numbers with one per channel or one for all.
struct NumericParam {
  std::string name;
  double fallback = 0.0;
  double lo = 0.0, hi = 0.0;
  std::string description;
  bool integer = false;
  bool list = false;
  bool boolean = false;  ///< true/false, seen by apply() as 1/0
  std::vector<double> choices = {};  ///< when not empty, the only values allowed
  std::vector<double> list_fallback = {};
};

/// The parameters as apply() sees them: values[i] for the i-th declared
/// parameter (a single element unless it is a list, which is expanded to one
/// per channel).
using NumericValues = std::vector<std::vector<double>>;
using NumericApply = std::function<at::Tensor(const at::Tensor& x, const NumericValues& values)>;

/// What the input must be.
enum class Channels { kAny, kRgb, kGrayOrRgb };

/// A transform from `info` (params docs are filled from `params`), the
/// parameter table and the function. The function runs inside a trace scope
/// named after the transform.
std::unique_ptr<Transform> make_numeric_transform(TransformInfo info, std::vector<NumericParam> params,
                                                  Channels channels, NumericApply apply);

}  // namespace devparity
