#pragma once
/// Describe: the builder of a transform's description, so that a transform
/// states what it is in one expression in its constructor:
///
///   Solarize()
///       : ConfiguredTransform(Describe("solarize", "color", "inverts the pixels at or above a threshold")
///                                 .param("threshold", "number in [0, 1]", "0.5", "as a fraction of the bound")
///                                 .dtypes(kImageDtypes)) {}
///
/// Described<Base> holds the result and answers info(); ConfiguredTransform
/// and the stateful bases derive from it.

#include "harness/subject/transform.h"

#include <string>
#include <utility>
#include <vector>

namespace devparity {

/// uint8 and the floating dtypes: what most image transforms take.
extern const std::vector<c10::ScalarType> kImageDtypes;
/// float16, bfloat16, float32 and float64.
extern const std::vector<c10::ScalarType> kFloatDtypes;
/// Without the half precision dtypes, for transforms neither torchvision nor Kornia runs in them
/// (their descriptions say why: docs/transforms.md).
extern const std::vector<c10::ScalarType> kFullPrecisionImageDtypes;
extern const std::vector<c10::ScalarType> kFullPrecisionDtypes;

class Describe {
 public:
  /// `meaning` is the one-line description `devparity list` shows.
  Describe(std::string name, std::string family, std::string meaning);
  /// Continues a description: a base class completing what its subclass began.
  explicit Describe(TransformInfo begun) : info_(std::move(begun)) {}

  /// One parameter, in the order sample() reads them.
  Describe& param(std::string name, std::string type, std::string default_value, std::string description);
  /// A parameter sample() writes from the input and a case never gives (the
  /// shape a field is drawn for): `from` is what it is made of, in the
  /// default's column.
  Describe& derived(std::string name, std::string type, std::string from, const std::string& meaning);
  /// Several parameters (a shared group, a configuration's own docs), appended.
  Describe& params(const std::vector<ParamDoc>& docs);
  /// The input dtypes apply() supports.
  Describe& dtypes(std::vector<c10::ScalarType> dtypes);
  /// sample() draws from the generator.
  Describe& random(bool random = true);
  /// apply() is differentiable with respect to a floating input.
  Describe& differentiable(bool differentiable = true);
  /// apply() does not run on LibTorch 1.13's meta device, and why.
  Describe& not_on_meta(std::string why);
  /// apply() runs on meta for some parameters only: which do not.
  Describe& meta_note(std::string note);
  /// apply() returns JPEG files (1-D uint8), not an image.
  Describe& jpeg_output();

  operator TransformInfo() const& { return info_; }  // NOLINT: a builder converts to what it builds
  operator TransformInfo() && { return std::move(info_); }  // NOLINT

 private:
  TransformInfo info_;
};

/// Base (Transform or StatefulTransform) answering info() with a description
/// fixed at construction.
template <typename Base>
class Described : public Base {
 public:
  explicit Described(TransformInfo info) : info_(std::move(info)) {}
  const TransformInfo& info() const final { return info_; }

 protected:
  const TransformInfo info_;
};

}  // namespace devparity
