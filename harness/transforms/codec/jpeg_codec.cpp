// jpeg_codec_differentiable (codec family): Kornia's differentiable JPEG,
// ../shared/spec/kornia-transforms.md §4, step by step on the input's device.
//
//  1 pad bottom/right to multiples of 16 (replicate)
//  2 RGB -> YCbCr on [0, 1], x255
//  3 chroma 4:2:0 through rescale(0.5, bilinear, antialias)
//  4 8x8 blocks in row-major block order
//  5 DCT  D = C (P - 128) C^T with C[u, x] = a(u)/2 cos((2x+1)u pi/16)
//  6 quality -> scale s = dfloor(q < 50 ? 5000/q : 200 - 2q)
//  7 effective table QTe = dfloor(softclip((QT s + 50) / 100, 1, 255))
//  8 Q = dround(D / QTe)   9 D' = Q QTe   10 IDCT + 128, un-block
// 11 chroma upsample through rescale(2, bilinear)  12 YCbCr -> RGB, clamp [0, 1]
// 14 crop to H x W  (13, a soft clip to [0, 255], is a no-op after 12)
//
// The quantisation tables are registered state (Kornia's module registers
// them as buffers); the differentiable floor, round and clip keep gradients
// flowing to the input. Conditions are arithmetic masks, not where() or
// boolean indexing, so every device runs it without host syncs.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/state.h"
#include "harness/subject/stateful_image.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/codec/jpeg_detail.h"
#include "harness/transforms/kernels/image_math.h"
#include "harness/transforms/kernels/resize_and_blur.h"
#include "harness/transforms/random/draws.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace devparity {
namespace {

const float kLuma[64] = {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
                         14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
                         18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
                         49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};

const float kChroma[64] = {17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
                           24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
                           99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
                           99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

constexpr double kClipScale = 0.02;

at::Tensor table(const float* values) {
  auto t = at::empty({1, 8, 8}, at::TensorOptions().dtype(at::kFloat));
  std::copy(values, values + 64, t.data_ptr<float>());
  return t;
}

// floor(x) + (x - 0.5 - floor(x))^3
at::Tensor dfloor(const at::Tensor& x) {
  const auto f = at::floor(x);
  return f + (x - 0.5 - f).pow(3);
}

// round_half_even(x) + (x - round(x))^3
at::Tensor dround(const at::Tensor& x) {
  const auto r = at::round(x);
  return r + (x - r).pow(3);
}

// Above hi: hi + s (1 - e^-(x - hi)); below lo: lo + s (e^(x - lo) - 1); else x.
// Written as clamp plus two terms that vanish in the middle, so no branch
// (and no overflow: each exponent only sees its own side).
at::Tensor softclip(const at::Tensor& x, double lo, double hi) {
  const auto above = kClipScale * (1.0 - at::exp(-(at::clamp_min(x, hi) - hi)));
  const auto below = kClipScale * (at::exp(at::clamp_max(x, lo) - lo) - 1.0);
  return at::clamp(x, lo, hi) + above + below;
}

// s(q) = dfloor(q < 50 ? 5000 / q : 200 - 2 q), q of shape (B).
at::Tensor quality_to_scale(const at::Tensor& q) {
  const auto high = (q >= 50.0).to(q.scalar_type());
  const auto low_q = (1.0 - high) * (5000.0 / q);
  const auto high_q = high * (200.0 - 2.0 * q);
  // q >= 50 leaves 5000 / q finite, so 0 * it is 0; q < 50 zeroes the other.
  return dfloor(low_q + high_q);
}

// (B, 1, 8, 8): the table scaled by each sample's quality.
at::Tensor effective_table(const at::Tensor& qt, const at::Tensor& scale) {
  return dfloor(softclip((qt.unsqueeze(1) * scale.reshape({-1, 1, 1, 1}) + 50.0) / 100.0, 1.0, 255.0));
}

// The orthonormal-scaled DCT basis C[u, x] = a(u) / 2 cos((2x + 1) u pi / 16).
at::Tensor dct_matrix(const at::TensorOptions& options) {
  const auto u = at::arange(8, options).unsqueeze(1);
  const auto x = at::arange(8, options).unsqueeze(0);
  const auto alpha = 1.0 - (1.0 - 1.0 / std::sqrt(2.0)) * (u == 0.0).to(options.dtype());
  return alpha * 0.5 * at::cos((2.0 * x + 1.0) * u * (M_PI / 16.0));
}

// (B, H, W) -> (B, H/8 * W/8, 8, 8), blocks in row-major order.
at::Tensor patchify(const at::Tensor& x) {
  const int64_t b = x.size(0), h = x.size(1), w = x.size(2);
  return x.reshape({b, h / 8, 8, w / 8, 8}).permute({0, 1, 3, 2, 4}).reshape({b, -1, 8, 8});
}

at::Tensor unpatchify(const at::Tensor& x, int64_t h, int64_t w) {
  const int64_t b = x.size(0);
  return x.reshape({b, h / 8, w / 8, 8, 8}).permute({0, 1, 3, 2, 4}).reshape({b, h, w});
}

// Quantise then dequantise with the effective table (steps 8 and 9).
at::Tensor requantise(const at::Tensor& dct, const at::Tensor& qte) {
  return dround(dct / qte) * qte;
}

at::Tensor codec(const at::Tensor& image, const at::Tensor& quality, const at::Tensor& qt_y,
                 const at::Tensor& qt_c) {
  const int64_t h = image.size(2), w = image.size(3);
  const int64_t hp = (h + 15) / 16 * 16, wp = (w + 15) / 16 * 16;
  const auto longs = image.options().dtype(at::kLong);
  at::Tensor x = image;
  {
    DEVPARITY_TRACE_SCOPE("pad");
    using at::indexing::Slice;
    x = x.index({Slice(), Slice(), at::arange(hp, longs).clamp_max(h - 1)});
    x = x.index({Slice(), Slice(), Slice(), at::arange(wp, longs).clamp_max(w - 1)});
  }
  at::Tensor y, cbcr;
  {
    DEVPARITY_TRACE_SCOPE("rgb_to_ycbcr");
    const auto ycc = image::rgb_to_ycbcr(x);
    y = ycc.select(1, 0) * 255.0;
    cbcr = ycc.narrow(1, 1, 2) * 255.0;
  }
  {
    DEVPARITY_TRACE_SCOPE("subsample");
    cbcr = rescale_image(cbcr, 0.5, 0.5, Interpolation::kBilinear, /*antialias=*/true, /*align_corners=*/false);
  }
  const auto c = dct_matrix(image.options());
  const auto ct = c.t();
  const auto scale = quality_to_scale(quality);
  at::Tensor y_out, c_out;
  {
    DEVPARITY_TRACE_SCOPE("quantise");
    const auto y_dct = at::matmul(at::matmul(c, patchify(y) - 128.0), ct);
    const auto c_blocks = at::cat({patchify(cbcr.select(1, 0)), patchify(cbcr.select(1, 1))}, 1);
    const auto c_dct = at::matmul(at::matmul(c, c_blocks - 128.0), ct);
    y_out = requantise(y_dct, effective_table(qt_y, scale));
    c_out = requantise(c_dct, effective_table(qt_c, scale));
  }
  at::Tensor rgb;
  {
    DEVPARITY_TRACE_SCOPE("decode");
    const auto y_img = unpatchify(at::matmul(at::matmul(ct, y_out), c) + 128.0, hp, wp);
    const auto c_blocks = at::matmul(at::matmul(ct, c_out), c) + 128.0;
    const int64_t half = c_blocks.size(1) / 2;
    const auto cb = unpatchify(c_blocks.narrow(1, 0, half), hp / 2, wp / 2);
    const auto cr = unpatchify(c_blocks.narrow(1, half, half), hp / 2, wp / 2);
    const auto up = rescale_image(at::stack({cb, cr}, 1), 2.0, 2.0, Interpolation::kBilinear, false, false);
    const auto ycc = at::cat({y_img.unsqueeze(1), up}, 1) / 255.0;
    rgb = image::ycbcr_to_rgb(ycc);
  }
  return rgb.narrow(2, 0, h).narrow(3, 0, w);
}

const random_draws::PerSample kQuality{"quality", "[number per sample] in [0, 100]",
                                       "JPEG quality per sample (one value for all also works); 0 gives NaN, as "
                                       "the formula",
                                       0.0, 100.0};
const random_draws::DrawRange kQualityRange{"quality_range", {1.0, 100.0}, 1.0, 100.0,
                                            "draw range when quality is not given (RandomJPEG's default)"};

class JpegCodecDifferentiable final : public StatefulImageTransform {
 public:
  JpegCodecDifferentiable()
      : StatefulImageTransform(
            Describe("jpeg_codec_differentiable", "codec",
                     "Kornia's differentiable JPEG (4:2:0, 8x8 DCT, standard tables, soft floor/round/clip); "
                     "tables are registered state")
                .params({kQuality.doc()})
                .params({kQualityRange.doc()})
                .param("same_on_batch", "bool", "false", "one quality draw for the whole batch")
                .dtypes(kFloatDtypes)
                .random()
                .differentiable()) {}

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape,
                        at::Generator& gen) const override {
    require_rgb(shape, info_.name);
    ObjectReader r(given);
    const auto range = kQualityRange.read(r);
    const bool same = r.boolean("same_on_batch", false);
    auto quality = kQuality.read(r, shape[0]);
    if (!quality) {
      const auto draw = random_draws::uniform(gen, shape[0], static_cast<float>(range.first),
                                          static_cast<float>(range.second), same);
      quality = std::vector<double>(draw.begin(), draw.end());
    }
    r.finish();
    nlohmann::json out = {{kQuality.name, *quality}, {"same_on_batch", same}};
    kQualityRange.write(out, range);
    return out;
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json&) const override {
    auto state = std::make_unique<TransformState>();
    state->register_tensor("quantization_table_y", table(kLuma));
    state->register_tensor("quantization_table_c", table(kChroma));
    return state;
  }

  at::Tensor run(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const override {
    const auto quality = params.at("quality").get<std::vector<double>>();
    TORCH_CHECK(static_cast<int64_t>(quality.size()) == x.size(0) && x.size(1) == 3,
                "jpeg_codec_differentiable: parameters for ", quality.size(), " samples, input ",
                x.sizes());
    std::vector<at::Tensor> q;
    for (double v : quality) q.push_back(at::full({1}, v, x.options()));
    // Kornia moves the tables to the input's device and dtype on every call.
    const auto qt_y = state.tensor("quantization_table_y").to(x.device(), x.scalar_type());
    const auto qt_c = state.tensor("quantization_table_c").to(x.device(), x.scalar_type());
    return codec(x, at::cat(q), qt_y, qt_c);
  }
};

}  // namespace

void register_jpeg_codec(TransformRegistry& registry) {
  registry.add(std::make_unique<JpegCodecDifferentiable>());
}

namespace jpeg_detail {
at::Tensor quality_scale(const at::Tensor& q) { return quality_to_scale(q); }
at::Tensor effective_qt(const at::Tensor& qt, const at::Tensor& scale) { return effective_table(qt, scale); }
at::Tensor soft_clip(const at::Tensor& x, double lo, double hi) { return softclip(x, lo, hi); }
at::Tensor diff_floor(const at::Tensor& x) { return dfloor(x); }
at::Tensor diff_round(const at::Tensor& x) { return dround(x); }
at::Tensor dct(const at::Tensor& blocks) {
  const auto c = dct_matrix(blocks.options());
  return at::matmul(at::matmul(c, blocks - 128.0), c.t());
}
}  // namespace jpeg_detail

}  // namespace devparity
