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

class SeededFieldTransform : public StatefulImageTransform {
 public:
  /// `info` as the subclass describes it; the "seed" parameter is added last.
  explicit SeededFieldTransform(TransformInfo info);

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape, at::Generator& gen) const override;
  std::unique_ptr<TransformState> make_state(const nlohmann::json& params) const override;

 protected:
  /// The transform's own settings, read (with defaults) from given or complete parameters.
  virtual nlohmann::json read_settings(ObjectReader& r) const = 0;
  /// The field for an input of `shape`, from the seeded CPU generator.
  virtual at::Tensor draw(at::Generator& gen, std::vector<int64_t> shape, const nlohmann::json& settings) const = 0;
  /// The transform of x with `field` (on x's device).
  virtual at::Tensor run_with(const at::Tensor& x, const at::Tensor& field, const nlohmann::json& settings) const = 0;

 private:
  at::Tensor run(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const final;
};

}  // namespace devparity
