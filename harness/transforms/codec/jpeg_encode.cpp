// jpeg_encode (codec family): the reference JPEG encoder of harness/jpeg as a
// subject. The device part runs on the input's device; the bytes come back
// on it too (as torchvision's encode_jpeg returns CUDA tensors for CUDA
// input), one file per image, back to back. The jpeg check validates them.

#include "harness/transforms/codec/jpeg_encode.h"

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/device/device_kinds.h"
#include "harness/subject/configured.h"
#include "harness/subject/fields.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>


namespace devparity {
namespace {

// The encoder's parameters, declared once.
struct EncodeParams : DeclaredFields<EncodeParams> {
  int64_t quality = 75;
  std::string subsampling = "420";
  bool optimize_huffman = false;
  int64_t restart_interval = 0;

  static void declare(Fields<EncodeParams>& f) {
    f.integer("quality", &EncodeParams::quality, 75, 1, 100, "integer in [1, 100]",
              "libjpeg's scaling of the Annex K tables")
        .choice("subsampling", &EncodeParams::subsampling, std::string("420"), {{"420", "420"}, {"444", "444"}},
                "chroma subsampling (RGB input; grey has none)")
        .boolean("optimize_huffman", &EncodeParams::optimize_huffman, false,
                 "Huffman tables built from each image's symbols")
        .integer("restart_interval", &EncodeParams::restart_interval, 0, 0, 65535, "integer in [0, 65535]",
                 "MCUs between RST markers; 0: none");
  }
};

jpeg::EncoderOptions options_from(const nlohmann::json& params) {
  ObjectReader r(params);
  const auto p = EncodeParams::fields().read(r);
  jpeg::EncoderOptions o;
  o.quality = static_cast<int>(p.quality);
  o.subsampling = jpeg::parse_subsampling(p.subsampling);
  o.optimize_huffman = p.optimize_huffman;
  o.restart_interval = static_cast<int>(p.restart_interval);
  return o;
}

}  // namespace

JpegEncoderBase::JpegEncoderBase(TransformInfo info)
    : Described(Describe(std::move(info))
                    .params(EncodeParams::fields().docs())
                    .dtypes({at::kByte, at::kFloat})
                    .jpeg_output()) {}

nlohmann::json JpegEncoderBase::sample(const nlohmann::json& given, c10::IntArrayRef shape,
                                       at::Generator&) const {
  require_nchw(shape, info_.name);
  if (shape[1] != 1 && shape[1] != 3) {
    throw InputError(fmt::format("{} takes 1 (grey) or 3 (RGB) channels, got {}", info_.name, shape[1]));
  }
  if (shape[2] > 65535 || shape[3] > 65535) {
    throw InputError(fmt::format("{}: JPEG sizes stop at 65535, got {}x{}", info_.name, shape[2], shape[3]));
  }
  ObjectReader r(given);
  const auto p = EncodeParams::fields().read(r);
  r.finish();
  nlohmann::json out = nlohmann::json::object();
  EncodeParams::fields().write(p, out);
  return out;
}

std::unique_ptr<TransformState> JpegEncoderBase::make_state(const nlohmann::json& params) const {
  const auto tables = jpeg::make_tables(params.at("quality").get<int>(), 3);
  auto state = std::make_unique<TransformState>();
  state->register_tensor("dct", tables.dct);
  state->register_tensor("quant", tables.quant);
  return state;
}

at::Tensor JpegEncoderBase::apply(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const {
  DEVPARITY_TRACE_SCOPE("jpeg_encode");
  require_nchw(x.sizes(), info_.name);
  const auto options = options_from(params);
  jpeg::EncoderTables tables;
  tables.dct = state.tensor("dct");
  tables.quant = state.tensor("quant");
  tables.host_quant = jpeg::host_quant_tables(options.quality, static_cast<int>(x.size(1)));
  if (!device_kind(x.device().type()).has_values) {
    // Meta checks placement only: the device part runs; there are no bytes to code.
    for (int64_t n = 0; n < x.size(0); ++n) jpeg::quantize(x.select(0, n), tables.dct, tables.quant, options);
    return at::empty({0}, x.options().dtype(at::kByte));
  }
  std::vector<std::vector<uint8_t>> files;
  for (int64_t n = 0; n < x.size(0); ++n) files.push_back(encode_one(x.select(0, n), tables, options));
  return jpeg::bytes_on(files, x.device());
}

std::vector<uint8_t> JpegEncoderBase::encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                                 const jpeg::EncoderOptions& options) const {
  return jpeg::encode(image, tables, options);
}

namespace {

class JpegEncode final : public JpegEncoderBase {
 public:
  JpegEncode()
      : JpegEncoderBase(Describe("jpeg_encode", "codec",
                                 "Reference baseline JPEG encoder: colour, subsampling, DCT and quantization on "
                                 "the device, exact in integers; Huffman coding on the host")) {}
};

}  // namespace

void register_jpeg_encode(TransformRegistry& registry) { registry.add(std::make_unique<JpegEncode>()); }

}  // namespace devparity
