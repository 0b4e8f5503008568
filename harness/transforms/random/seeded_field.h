#pragma once
/// SeededFieldTransform: a transform whose state is one random field of the
/// input's size, drawn on the CPU from a seed in the parameters and
/// registered, so it follows the subject to every device: a device's own
/// generator would draw other numbers on each device (and on meta, none),
/// and parity would compare noise with noise. The noise family and the
/// plasma transforms of the intensity family are this shape.

#include "harness/base/json_reader.h"
#include "harness/subject/stateful_image.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

namespace devparity {

/// One setting of a seeded field, declared once: its reading (with the
/// range check), its value in the parameters and its doc.
struct FieldSetting {
  const char* name;
  double fallback;      ///< for a boolean setting, 0 or 1
  double lo, hi;
  const char* type;     ///< "number in [0, 1]", "bool"
  const char* meaning;
  bool boolean = false;
};

class SeededFieldTransform : public StatefulImageTransform {
 public:
  /// `info` as the subclass describes it; the settings' docs and then the
  /// "seed" parameter are added after its own.
  SeededFieldTransform(TransformInfo info, std::vector<FieldSetting> settings);

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape, at::Generator& gen) const override;
  std::unique_ptr<TransformState> make_state(const nlohmann::json& params) const override;

 protected:
  /// The field for an input of `shape`, from the seeded CPU generator.
  virtual at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape, const nlohmann::json& settings) const = 0;
  /// The transform of x with `field` (on x's device).
  virtual at::Tensor run_with(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& settings) const = 0;

 private:
  /// The settings, read (with defaults) from given or complete parameters.
  nlohmann::json read_settings(ObjectReader& r) const;
  at::Tensor run(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const final;

  std::vector<FieldSetting> settings_;
};

}  // namespace devparity
