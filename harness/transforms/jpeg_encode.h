#pragma once
/// Pieces of the jpeg_encode subject that other JPEG subjects (the seeded
/// faults, user encoders) reuse: the parameter interface and the packing of
/// files into the output tensor.

#include "harness/jpeg/encoder.h"
#include "harness/transforms/transform.h"

#include <c10/core/Device.h>

namespace devparity {

/// jpeg_encode's parameters, validated, with defaults filled in.
nlohmann::json read_jpeg_encode_params(const nlohmann::json& given, c10::IntArrayRef shape,
                                       const std::string& subject);
std::vector<ParamDoc> jpeg_encode_param_docs();
jpeg::EncoderOptions jpeg_options_from(const nlohmann::json& params);

/// The files back to back in a uint8 tensor on `device` (a declared host hand-over).
at::Tensor concat_files(const std::vector<std::vector<uint8_t>>& files, const c10::Device& device);

}  // namespace devparity
