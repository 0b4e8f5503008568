#pragma once
/// The jpeg_encode subject, as a base that other JPEG encoders (the seeded
/// faults, a user's encoder) derive from: parameters, registered tables,
/// batching and packing are shared; encode_one() is the encoder.

#include "harness/transforms/codec/jpeg_encoder.h"
#include "harness/subject/describe.h"
#include "harness/subject/state.h"

namespace devparity {

class JpegEncoderBase : public Described<StatefulTransform> {
 public:
  /// `info` gives name, family and description; parameters, dtypes (uint8,
  /// float32) and the "jpeg" output are filled in.
  explicit JpegEncoderBase(TransformInfo info);
  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape,
                        at::Generator& gen) const override;
  /// Registers "dct" and "quant" (jpeg::make_tables) for the params' quality.
  std::unique_ptr<TransformState> make_state(const nlohmann::json& params) const override;
  using StatefulTransform::apply;
  /// Each image through encode_one(), the files back to back on the input's
  /// device. On meta only the device part runs, and the output is empty.
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const override;

 protected:
  /// One CHW image on its device to one JFIF file. The reference: quantize,
  /// hand_over, entropy_code.
  virtual std::vector<uint8_t> encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                          const jpeg::EncoderOptions& options) const;
};

}  // namespace devparity
