// An example plugin. Loaded by `devparity run --plugin`, it registers:
//  - example_channel_gain: scales each channel by a gain table kept as
//    registered state, so it follows the subject to every device;
//  - example_channel_gain_plain: the same with the table as a plain member,
//    made on the CPU: the bug devparity finds (on meta and vdev:1 here, on
//    cuda:N on GPUs);
//  - the custom operator devparity_example::encode_jpeg(Tensor image, int
//    quality) -> Tensor, as an image library would ship a JPEG encoder, for
//    TorchScript modules to call (tests/fixtures/torchscript/jpeg_op.pt).

#include <harness/base/error.h>
#include <harness/transforms/codec/jpeg_encoder.h>
#include <harness/subject/describe.h>
#include <harness/subject/register.h>
#include <harness/subject/state.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/library.h>

#include <cstring>

namespace example {

using devparity::Describe;
using devparity::Described;
using devparity::TransformState;

Describe gain_info(const char* name, const char* description) {
  return Describe(name, "example", description)
      .param("gain", "[r, g, b] numbers", "[0.9, 1.0, 1.1]", "per-channel gains")
      .dtypes({at::kFloat, at::kDouble});
}

nlohmann::json gain_params(const nlohmann::json& given) {
  nlohmann::json out = {{"gain", {0.9, 1.0, 1.1}}};
  for (const auto& [key, value] : given.items()) {
    if (key != "gain" || !value.is_array() || value.size() != 3) {
      throw devparity::InputError("example_channel_gain takes {\"gain\": [r, g, b]}");
    }
    out["gain"] = value;
  }
  return out;
}

at::Tensor gain_table(const nlohmann::json& params) {
  const auto g = params.at("gain").get<std::vector<double>>();
  auto t = at::empty({3}, at::TensorOptions().dtype(at::kDouble).device(at::kCPU));
  std::memcpy(t.data_ptr<double>(), g.data(), sizeof(double) * 3);
  return t;
}

// The clean one: the table is registered state.
class ChannelGain final : public Described<devparity::StatefulTransform> {
 public:
  ChannelGain() : Described(gain_info("example_channel_gain", "Per-channel gain; the table is registered state")) {}
  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef, at::Generator&) const override {
    return gain_params(given);
  }
  std::unique_ptr<TransformState> make_state(const nlohmann::json& params) const override {
    auto state = std::make_unique<TransformState>();
    state->register_tensor("gain", gain_table(params));
    return state;
  }
  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&, TransformState& state) const override {
    return x * state.tensor("gain").to(x.scalar_type()).reshape({1, 3, 1, 1});
  }
};

// The faulty twin: the table is a member, made once on the CPU, never moved.
class ChannelGainPlain final : public Described<devparity::Transform> {
 public:
  ChannelGainPlain()
      : Described(gain_info("example_channel_gain_plain",
                            "Per-channel gain; the table is a plain member (seeded fault)")) {}
  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef, at::Generator&) const override {
    return gain_params(given);
  }
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params) const override {
    if (!table_.defined()) table_ = gain_table(params);
    return x * table_.to(x.scalar_type()).reshape({1, 3, 1, 1});
  }

 private:
  mutable at::Tensor table_;
};

// devparity_example::encode_jpeg: devparity's reference encoder behind a
// custom operator. CHW uint8 in; the JPEG file as a 1-D uint8 tensor on the
// image's device out (empty on meta, where only the device part runs).
at::Tensor encode_jpeg(const at::Tensor& image, int64_t quality) {
  devparity::jpeg::EncoderOptions options;
  options.quality = static_cast<int>(quality);
  const auto tables = devparity::jpeg::device_tables(options.quality, static_cast<int>(image.size(0)), image.device());
  if (image.device().type() == c10::DeviceType::Meta) {
    devparity::jpeg::quantize(image, tables.dct, tables.quant, options);
    return at::empty({0}, image.options().dtype(at::kByte));
  }
  return devparity::jpeg::bytes_on(devparity::jpeg::encode(image, tables, options), image.device());
}

}  // namespace example

DEVPARITY_REGISTER_TRANSFORM(example::ChannelGain)
DEVPARITY_REGISTER_TRANSFORM(example::ChannelGainPlain)

TORCH_LIBRARY(devparity_example, m) {
  m.def("encode_jpeg(Tensor image, int quality) -> Tensor", &example::encode_jpeg);
}
