// jpeg_encode (codec family): the reference JPEG encoder of harness/jpeg as a
// subject. The device part runs on the input's device; the bytes come back
// on it too (as torchvision's encode_jpeg returns CUDA tensors for CUDA
// input), one file per image, back to back. The jpeg check validates them.

#include "harness/core/error.h"
#include "harness/core/json_reader.h"
#include "harness/jpeg/encoder.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/configured.h"
#include "harness/transforms/jpeg_encode.h"
#include "harness/transforms/registry.h"
#include "harness/transforms/state.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstring>

namespace devparity {

jpeg::EncoderOptions jpeg_options_from(const nlohmann::json& params) {
  jpeg::EncoderOptions o;
  o.quality = params.at("quality").get<int>();
  o.subsampling = jpeg::parse_subsampling(params.at("subsampling").get<std::string>());
  o.optimize_huffman = params.at("optimize_huffman").get<bool>();
  o.restart_interval = params.at("restart_interval").get<int>();
  return o;
}

nlohmann::json read_jpeg_encode_params(const nlohmann::json& given, c10::IntArrayRef shape,
                                       const std::string& subject) {
  require_nchw(shape, subject);
  if (shape[1] != 1 && shape[1] != 3) {
    throw InputError(fmt::format("{} takes 1 (grey) or 3 (RGB) channels, got {}", subject, shape[1]));
  }
  if (shape[2] > 65535 || shape[3] > 65535) {
    throw InputError(fmt::format("{}: JPEG sizes stop at 65535, got {}x{}", subject, shape[2], shape[3]));
  }
  ObjectReader r(given);
  const int quality = static_cast<int>(r.integer("quality", 75, 1, 100));
  const auto subsampling = r.string("subsampling", std::string("420"), {"420", "444"});
  const bool optimize = r.boolean("optimize_huffman", false);
  const int restart = static_cast<int>(r.integer("restart_interval", 0, 0, 65535));
  r.finish();
  return {{"quality", quality}, {"subsampling", subsampling}, {"optimize_huffman", optimize},
          {"restart_interval", restart}};
}

std::vector<ParamDoc> jpeg_encode_param_docs() {
  return {
      {"quality", "integer in [1, 100]", "75", "libjpeg's scaling of the Annex K tables"},
      {"subsampling", "420|444", "\"420\"", "chroma subsampling (RGB input; grey has none)"},
      {"optimize_huffman", "bool", "false", "Huffman tables built from each image's symbols"},
      {"restart_interval", "integer in [0, 65535]", "0", "MCUs between RST markers; 0: none"},
  };
}

at::Tensor concat_files(const std::vector<std::vector<uint8_t>>& files, const c10::Device& device) {
  size_t total = 0;
  for (const auto& f : files) total += f.size();
  auto bytes = at::empty({static_cast<int64_t>(total)}, at::TensorOptions().dtype(at::kByte));
  size_t at = 0;
  for (const auto& f : files) {
    std::memcpy(bytes.data_ptr<uint8_t>() + at, f.data(), f.size());
    at += f.size();
  }
  // The bytes were made on the host; they go back to the input's device.
  DEVPARITY_HOST_HANDOVER();
  return bytes.to(device);
}

namespace {

class JpegEncode final : public StatefulTransform {
 public:
  JpegEncode() {
    info_.name = "jpeg_encode";
    info_.family = "codec";
    info_.description = "Reference baseline JPEG encoder: colour, subsampling, DCT and quantization "
                        "on the device, exact in integers; Huffman coding on the host";
    info_.params = jpeg_encode_param_docs();
    info_.dtypes = {at::kByte, at::kFloat};
    info_.output = "jpeg";
  }
  const TransformInfo& info() const override { return info_; }

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape,
                        at::Generator&) const override {
    return read_jpeg_encode_params(given, shape, info_.name);
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json& params) const override {
    // Tables for colour; grey input uses the first (luma) one.
    const auto tables = jpeg::make_tables(params.at("quality").get<int>(), 3);
    auto state = std::make_unique<TransformState>();
    state->register_tensor("dct", tables.dct);
    state->register_tensor("quant", tables.quant);
    return state;
  }

  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const override {
    DEVPARITY_TRACE_SCOPE("jpeg_encode");
    require_nchw(x.sizes(), info_.name);
    const auto options = jpeg_options_from(params);
    const auto& dct = state.tensor("dct");
    const auto& quant = state.tensor("quant");
    const auto host_tables = jpeg::make_tables(options.quality, 3).host_quant;
    std::vector<std::vector<uint8_t>> files;
    for (int64_t n = 0; n < x.size(0); ++n) {
      auto q = jpeg::quantize(x.select(0, n), dct, quant, options);
      if (x.device().type() == c10::DeviceType::Meta) continue;  // no values to code
      const auto host = jpeg::hand_over(q.coefficients);
      std::vector<std::array<uint16_t, 64>> used(host_tables.begin(),
                                                 host_tables.begin() + (x.size(1) == 3 ? 2 : 1));
      files.push_back(jpeg::entropy_code(std::move(q), host, used, options));
    }
    if (x.device().type() == c10::DeviceType::Meta) {
      // Meta checks placement only: the device part ran; there are no bytes.
      return at::empty({0}, x.options().dtype(at::kByte));
    }
    return concat_files(files, x.device());
  }

 private:
  TransformInfo info_;
};

}  // namespace

void register_jpeg_encoder(TransformRegistry& registry) { registry.add(std::make_unique<JpegEncode>()); }

}  // namespace devparity
