#pragma once
/// A transform is a named, device-agnostic operation on NCHW images.
///
/// Sampling is split from apply (Kornia's augmentation pattern): sample() runs
/// once per trial group on the CPU, validates the given parameters, fills the
/// defaults and draws any random ones from a seeded generator; apply() is pure
/// tensor code that must run on every device and every dtype it declares,
/// taking the device of everything it creates from its input. The runner
/// replays the same sampled parameters on every device.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace devparity {

/// Documentation of one parameter (shown by `devparity list`).
struct ParamDoc {
  std::string name;           ///< the JSON field name
  std::string type;           ///< "[H, W] integers", "nearest|bilinear|bicubic|area", ...
  std::string default_value;  ///< JSON text of the default, or "required"
  std::string description;    ///< one line
};

/// What a transform is and what it accepts.
struct TransformInfo {
  std::string name;                     ///< unique; [A-Za-z0-9_]
  std::string family;                   ///< "geometry", "filter", "native", ...
  std::string description;              ///< one line
  std::vector<ParamDoc> params;         ///< every parameter sample() accepts
  std::vector<c10::ScalarType> dtypes;  ///< input dtypes apply() supports
  bool random = false;                  ///< sample() draws from the generator
  bool differentiable = false;          ///< apply() is differentiable w.r.t. a floating input
  /// apply() runs on the meta device (LibTorch 1.13) for every parameter;
  /// `meta_note` names what does not, when only some parameters do.
  bool meta = true;
  std::string meta_note;
  /// What apply() returns: "image" (an NCHW tensor) or "jpeg" (a 1-D uint8
  /// tensor holding one JPEG file per input image, back to back).
  std::string output = "image";
};

/// Interface of every subject the runner can audit.
class Transform {
 public:
  virtual ~Transform() = default;

  /// Name, documentation and supported dtypes.
  virtual const TransformInfo& info() const = 0;

  /// Validates `given` (a JSON object; null means {}), fills defaults and draws
  /// the random parameters from `generator` (CPU). Returns the complete
  /// parameters, which apply() accepts on every device. Throws FieldError for a
  /// bad field and InputError for an input shape the transform cannot take.
  virtual nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef input_shape,
                                at::Generator& generator) const = 0;

  /// Runs on `input`'s device and returns the result there. `params` is what
  /// sample() returned. Throws Unsupported for combinations it does not run.
  virtual at::Tensor apply(const at::Tensor& input, const nlohmann::json& params) const = 0;
};

}  // namespace devparity
