// Colour and intensity adjustments. torchvision v2 semantics
// (transforms/v2/functional/_color.py) unless marked Kornia
// (kornia/enhance/adjust.py, normalize.py). B = 255 for uint8, 1 for floats;
// uint8 results are truncated back (.to(uint8)) where torchvision truncates.
//
//   contrast(f):    blend(x, mean(gray), f), gray = floor(L) for uint8 RGB
//   saturation(f):  blend(x, gray, f) per pixel (gray floored for uint8)
//   blend(a, b, r): clamp(a r + b (1 - r), 0, B)
//   L:              0.2989 R + 0.587 G + 0.114 B
//   hue(f):         HSV with h <- (h + f) mod 1, computed in float32 on x / B;
//                   uint8 back as trunc(y (256 - 1e-3))
//   gamma(g, k):    clamp(k (x / B)^g, 0, 1) (clamped only when k != 1), back
//                   as hue
//   grayscale(n):   L, truncated for uint8, repeated to n channels
//   sharpness(f):   blend(x, S(x), f) on the interior, S = the 3x3 kernel
//                   [1 1 1; 1 5 1; 1 1 1] / 13 (rounded for uint8); the
//                   one-pixel border keeps x; images under 3x3 are unchanged
//   autocontrast:   per channel (x - min) B / (max - min), clamped; a flat
//                   channel is left as is
//   equalize:       PIL's: per channel, histogram h of the uint8 values
//                   (floats: trunc(x (256 - 1e-3))), step = (N - h[max]) // 255,
//                   lut[i] = (cdf[i - 1] + step // 2) // step (lut[0] = 0),
//                   clamped to 255; step 0 leaves the channel unchanged
//   sigmoid(c, g):  Kornia: 1 / (1 + exp(g (c - x))), 1 - that when inverted
//   log(g):         Kornia: clamp(g log2(1 + x), 0, 1); inverted g (2^x - 1)
//   normalize:      (x - mean_c) / std_c;   denormalize: x std_c + mean_c
//
// Everything is built on the input's device; the histogram is a scatter_add
// there, with no trip to the host.

#include "harness/base/rounding.h"
#include "harness/subject/describe.h"
#include "harness/subject/numeric_transform.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"

#include <ATen/ATen.h>

namespace devparity {
namespace {

using image::blend;
using image::bound_of;

// The greyscale that contrast and saturation blend towards.
at::Tensor blend_gray(const at::Tensor& x) {
  if (x.size(1) != 3) return x.is_floating_point() ? x : x.to(at::kFloat);
  auto gray = image::luminance(x);
  return x.is_floating_point() ? gray : gray.floor();
}

at::Tensor contrast(const at::Tensor& x, const NumericValues& v) {
  if (x.numel() == 0) return x.clone();
  return blend(x, blend_gray(x).mean({1, 2, 3}, true), v[0][0]);
}

at::Tensor saturation(const at::Tensor& x, const NumericValues& v) {
  if (x.size(1) == 1) return x.clone();
  return blend(x, blend_gray(x), v[0][0]);
}

at::Tensor hue(const at::Tensor& x, const NumericValues& v) {
  // One channel: unchanged, as PIL and torchvision.
  if (x.numel() == 0 || x.size(1) == 1) return x.clone();
  const auto hsv = image::rgb_to_hsv_unit(image::to_unit_float(x));
  const auto shifted = hsv.narrow(1, 0, 1).add(v[0][0]).remainder(1.0);
  const auto rgb = image::hsv_unit_to_rgb(at::cat({shifted, hsv.narrow(1, 1, 2)}, 1));
  return image::from_unit_float(rgb, x.scalar_type());
}

at::Tensor gamma(const at::Tensor& x, const NumericValues& v) {
  auto out = (x.is_floating_point() ? x : image::to_unit_float(x)).pow(v[0][0]);
  if (v[1][0] != 1.0) out = out.mul(v[1][0]).clamp(0.0, 1.0);
  return image::from_unit_float(out, x.scalar_type());
}

at::Tensor grayscale(const at::Tensor& x, const NumericValues& v) {
  const auto channels = static_cast<int64_t>(v[0][0]);
  if (x.size(1) == 1) return channels == 1 ? x.clone() : x.expand({-1, channels, -1, -1}).contiguous();
  auto luma = image::luminance(x);
  if (channels != 1) luma = luma.expand({-1, channels, -1, -1});
  const auto gray = luma.to(x.scalar_type()).contiguous();
  return x.is_floating_point() ? gray : note_unrounded(gray, luma, Rounding::kTruncate);
}

at::Tensor sharpness(const at::Tensor& x, const NumericValues& v) {
  if (x.numel() == 0 || x.size(2) <= 2 || x.size(3) <= 2) return x.clone();
  const bool fp = x.is_floating_point();
  const double a = 1.0 / 13.0, b = 5.0 / 13.0;
  auto out = fp ? x.clone() : x.to(at::kFloat);
  auto blurred = image::stencil(out, {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 0}, {0, 1}, {1, -1}, {1, 0}, {1, 1}},
                                {a, a, a, a, b, a, a, a, a});
  if (!fp) blurred = blurred.round();
  auto interior = out.narrow(2, 1, x.size(2) - 2).narrow(3, 1, x.size(3) - 2);
  // view + (1 - f) (blurred - view) = f view + (1 - f) blurred
  interior.copy_(interior.add(blurred.sub(interior), 1.0 - v[0][0]));
  out = out.clamp(0.0, bound_of(x));
  return fp ? out : note_unrounded(out.to(x.scalar_type()), out, Rounding::kTruncate);
}

at::Tensor autocontrast(const at::Tensor& x, const NumericValues&) {
  if (x.numel() == 0) return x.clone();
  const double bound = bound_of(x);
  const auto fx = x.is_floating_point() ? x : x.to(at::kFloat);
  const auto lo = fx.amin({2, 3}, true), hi = fx.amax({2, 3}, true);
  const auto flat = hi.eq(lo);
  const auto minimum = lo.masked_fill(flat, 0.0);
  const auto inv_scale = hi.sub(lo).mul(1.0 / bound).masked_fill(flat, 1.0);
  const auto out = fx.sub(minimum).div(inv_scale).clamp(0.0, bound);
  return x.is_floating_point() ? out.to(x.scalar_type()) : note_unrounded(out.to(x.scalar_type()), out, Rounding::kTruncate);
}

at::Tensor equalize(const at::Tensor& x, const NumericValues&) {
  if (x.numel() == 0) return x.clone();
  const auto u8 = x.scalar_type() == at::kByte ? x : image::from_unit_float(x, at::kByte);
  const int64_t n = x.size(0), c = x.size(1), pixels = x.size(2) * x.size(3);
  const auto flat = u8.reshape({n * c, pixels}).to(at::kLong);
  const auto hist = at::zeros({n * c, 256}, flat.options()).scatter_add(1, flat, at::ones_like(flat));
  const auto top = flat.amax({1}, true);
  const auto step = (hist.gather(1, top).neg().add(pixels)).div(255, "floor");
  const auto flat_hist = step.eq(0);
  const auto safe_step = step.add(flat_hist.to(at::kLong));
  const auto cdf = hist.cumsum(1);
  // lut[i] uses the cdf up to i - 1: shift right by one, lut[0] = 0.
  const auto before = at::cat({at::zeros({n * c, 1}, cdf.options()), cdf.narrow(1, 0, 255)}, 1);
  const auto lut = before.add(step.div(2, "floor")).div(safe_step, "floor").clamp(0, 255);
  const auto equalized = lut.gather(1, flat);
  const auto out = image::choose(flat_hist, flat, equalized).to(at::kByte).reshape(x.sizes());
  return x.scalar_type() == at::kByte ? out : image::to_unit_float(out).to(x.scalar_type());
}

at::Tensor sigmoid(const at::Tensor& x, const NumericValues& v) {
  const auto out = x.neg().add(v[0][0]).mul(v[1][0]).exp().add(1.0).reciprocal();
  return v[2][0] != 0.0 ? out.neg().add(1.0) : out;
}

at::Tensor log_adjust(const at::Tensor& x, const NumericValues& v) {
  const auto out = v[1][0] != 0.0 ? at::pow(2.0, x).sub(1.0).mul(v[0][0]) : x.add(1.0).log2().mul(v[0][0]);
  return v[2][0] != 0.0 ? out.clamp(0.0, 1.0) : out;
}

at::Tensor normalize(const at::Tensor& x, const NumericValues& v) {
  return x.sub(image::per_channel(v[0], x.options())).div(image::per_channel(v[1], x.options()));
}

at::Tensor denormalize(const at::Tensor& x, const NumericValues& v) {
  return x.mul(image::per_channel(v[1], x.options())).add(image::per_channel(v[0], x.options()));
}

NumericParam grayscale_channels() {
  NumericParam p{"num_output_channels", 1, 1, 3, "the grey repeated", true};
  p.choices = {1, 3};
  return p;
}

NumericParam flag(const char* name, bool fallback, const char* description) {
  NumericParam p{name, fallback ? 1.0 : 0.0, 0, 1, description};
  p.boolean = true;
  return p;
}

NumericParam per_channel_list(const char* name, std::vector<double> fallback, double lo, const char* description) {
  NumericParam p{name, 0, lo, 1e6, description};
  p.list = true;
  p.list_fallback = std::move(fallback);
  return p;
}

}  // namespace

void register_color_adjust(TransformRegistry& registry) {
  registry.add(make_numeric_transform(
      Describe("adjust_contrast", "color", "blend with the mean grey level (torchvision)").dtypes(kImageDtypes).differentiable(),
      {{"factor", 1.5, 0.0, 1e6, "0 gives flat grey, 1 the image"}}, Channels::kGrayOrRgb, contrast));
  registry.add(make_numeric_transform(
      Describe("adjust_saturation", "color", "blend with the per-pixel grey (torchvision)").dtypes(kImageDtypes).differentiable(),
      {{"factor", 0.5, 0.0, 1e6, "0 gives grey, 1 the image"}}, Channels::kGrayOrRgb, saturation));
  registry.add(make_numeric_transform(
      Describe("adjust_hue", "color", "rotate the hue in HSV (torchvision; float32 inside)").dtypes(kImageDtypes),
      {{"factor", 0.25, -0.5, 0.5, "added to the hue, in turns"}}, Channels::kGrayOrRgb, hue));
  registry.add(make_numeric_transform(
      Describe("adjust_gamma", "color", "gain * (x / bound)^gamma (torchvision)").dtypes(kImageDtypes).differentiable(),
      {{"gamma", 2.2, 0.0, 1e3, "exponent"}, {"gain", 1.0, 0.0, 1e3, "multiplier; clamps to [0, 1] when not 1"}},
      Channels::kAny, gamma));
  registry.add(make_numeric_transform(
      Describe("rgb_to_grayscale", "color", "0.2989 R + 0.587 G + 0.114 B, truncated for uint8 (torchvision)").dtypes(kImageDtypes).differentiable(),
      {grayscale_channels()}, Channels::kGrayOrRgb, grayscale));
  registry.add(make_numeric_transform(
      Describe("adjust_sharpness", "color", "blend with a 3x3 smoothing of the interior (torchvision)").dtypes(kImageDtypes).differentiable(),
      {{"factor", 2.0, 0.0, 1e6, "0 smooths, 1 the image, above 1 sharpens"}}, Channels::kAny, sharpness));
  registry.add(make_numeric_transform(
      Describe("autocontrast", "color", "stretch each channel to the full range (torchvision)").dtypes(kImageDtypes), {},
      Channels::kAny, autocontrast));
  registry.add(make_numeric_transform(
      Describe("equalize", "color", "PIL's histogram equalisation per channel, histogram on the device (torchvision)")
          .dtypes(kImageDtypes),
      {}, Channels::kAny, equalize));
  registry.add(make_numeric_transform(
      Describe("adjust_sigmoid", "color", "1 / (1 + exp(gain (cutoff - x))) (Kornia)").dtypes(kFloatDtypes).differentiable(),
      {{"cutoff", 0.5, -1e3, 1e3, "the midpoint"}, {"gain", 10.0, -1e3, 1e3, "the slope"},
       flag("inv", false, "one minus the result")},
      Channels::kAny, sigmoid));
  registry.add(make_numeric_transform(
      Describe("adjust_log", "color", "gain log2(1 + x), clipped to [0, 1] (Kornia)").dtypes(kFloatDtypes).differentiable(),
      {{"gain", 1.0, -1e3, 1e3, "multiplier"}, flag("inv", false, "gain (2^x - 1) instead"),
       flag("clip_output", true, "clamp to [0, 1]")},
      Channels::kAny, log_adjust));
  registry.add(make_numeric_transform(
      Describe("normalize", "color", "(x - mean) / std per channel").dtypes(kFloatDtypes).differentiable(),
      {per_channel_list("mean", {0.485, 0.456, 0.406}, -1e6, "per channel"),
       per_channel_list("std", {0.229, 0.224, 0.225}, 1e-12, "per channel, > 0")},
      Channels::kAny, normalize));
  registry.add(make_numeric_transform(
      Describe("denormalize", "color", "x * std + mean per channel (Kornia)").dtypes(kFloatDtypes).differentiable(),
      {per_channel_list("mean", {0.485, 0.456, 0.406}, -1e6, "per channel"),
       per_channel_list("std", {0.229, 0.224, 0.225}, 1e-12, "per channel, > 0")},
      Channels::kAny, denormalize));
}

}  // namespace devparity
