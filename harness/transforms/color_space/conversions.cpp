// Colour-space conversions with Kornia's conventions (kornia/color), on
// floating RGB in [0, 1], N x 3 x H x W:
//
//   hsv:    h in [0, 2 pi) radians, s = (max - min) / max (0 for grey),
//           v = max; red wins ties, then green (torchvision's _rgb_to_hsv
//           ordering, h scaled by 2 pi)
//   hls:    l = (max + min) / 2, s = d / (max + min) when l < .5 else
//           d / (2 - max - min), d = max - min, h = 60 deg * ((G - B) / d mod 6
//           | (B - R) / d + 2 | (R - G) / d + 4) by the argmax (first on
//           ties), in radians; grey pixels have h = s = 0;
//           back: k_c = (n_c + 6 h / pi) mod 12 with n = (0, 8, 4),
//           c = l - s min(l, 1 - l) clamp(min(k - 3, 9 - k), -1, 1)
//   ycbcr:  Y = .299 R + .587 G + .114 B, Cb = (B - Y) .564 + .5,
//           Cr = (R - Y) .713 + .5; back clamped to [0, 1] (Kornia's JPEG path)
//   yuv:    Y as above, U = -.147 R - .289 G + .436 B, V = .615 R - .515 G - .100 B;
//           back R = Y + 1.14 V, G = Y - .396 U - .581 V, B = Y + 2.029 U
//   lab:    sRGB -> linear (c > .04045 ? ((c + .055) / 1.055)^2.4 : c / 12.92)
//           -> XYZ (D65 matrix) / white (.95047, 1, 1.08883) -> f(t) = t > .008856 ?
//           t^(1/3) : 7.787 t + 4/29; L = 116 f(Y) - 16, a = 500 (f(X) - f(Y)),
//           b = 200 (f(Y) - f(Z)); back through the inverse steps, negative
//           linear values clipped, the result clamped to [0, 1]
//
// The 3x3 matrices are applied as weighted sums of channel slices with
// scalar weights: nothing is built on the host.

#include "harness/subject/describe.h"
#include "harness/subject/numeric_transform.h"
#include "harness/subject/transform_registry.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"

#include <ATen/ATen.h>

#include <array>
#include <cmath>

namespace devparity {
namespace {

using Matrix = std::array<std::array<double, 3>, 3>;

at::Tensor channel(const at::Tensor& x, int64_t c) { return x.narrow(1, c, 1); }

at::Tensor mix(const at::Tensor& x, const Matrix& m) {
  std::vector<at::Tensor> out;
  for (const auto& row : m) {
    out.push_back(channel(x, 0) * row[0] + channel(x, 1) * row[1] + channel(x, 2) * row[2]);
  }
  return at::cat(out, 1);
}

constexpr double kTwoPi = 2.0 * M_PI;

at::Tensor rgb_to_hsv(const at::Tensor& x, const NumericValues&) {
  const auto hsv = image::rgb_to_hsv_unit(x);
  return at::cat({channel(hsv, 0) * kTwoPi, hsv.narrow(1, 1, 2)}, 1);
}

at::Tensor hsv_to_rgb(const at::Tensor& x, const NumericValues&) {
  return image::hsv_unit_to_rgb(at::cat({channel(x, 0) / kTwoPi, x.narrow(1, 1, 2)}, 1));
}

at::Tensor rgb_to_hls(const at::Tensor& x, const NumericValues&) {
  const auto r = channel(x, 0), g = channel(x, 1), b = channel(x, 2);
  const auto [maxc, imax] = x.max(1, true);
  const auto minc = x.amin({1}, true);
  const auto sum = maxc + minc;
  const auto l = sum / 2.0;
  const auto d = maxc - minc;
  const auto grey = d.eq(0.0);
  const auto safe_d = image::choose(grey, at::ones_like(d), d);
  const auto s = image::choose(l.lt(0.5), d / image::choose(grey, at::ones_like(d), sum),
                               d / image::choose(grey, at::ones_like(d), 2.0 - sum));
  const auto candidates = at::cat({((g - b) / safe_d).remainder(6.0), (b - r) / safe_d + 2.0,
                                   (r - g) / safe_d + 4.0}, 1);
  const auto sector = candidates.gather(1, imax);
  const auto h = sector.mul(kTwoPi / 6.0).masked_fill(grey, 0.0);
  return at::cat({h, l, s.masked_fill(grey, 0.0)}, 1);
}

at::Tensor hls_to_rgb(const at::Tensor& x, const NumericValues&) {
  const auto h = channel(x, 0) * (6.0 / M_PI);
  const auto l = channel(x, 1), s = channel(x, 2);
  const auto a = s * at::minimum(l, 1.0 - l);
  const auto k = (h + image::per_channel({0.0, 8.0, 4.0}, x.options())).remainder(12.0);
  const auto mink = at::minimum(k - 3.0, 9.0 - k).clamp(-1.0, 1.0);
  return l - a * mink;
}

at::Tensor rgb_to_ycbcr(const at::Tensor& x, const NumericValues&) { return image::rgb_to_ycbcr(x); }
at::Tensor ycbcr_to_rgb(const at::Tensor& x, const NumericValues&) { return image::ycbcr_to_rgb(x); }

const Matrix kRgbToYuv = {{{0.299, 0.587, 0.114}, {-0.147, -0.289, 0.436}, {0.615, -0.515, -0.100}}};
const Matrix kYuvToRgb = {{{1.0, 0.0, 1.14}, {1.0, -0.396, -0.581}, {1.0, 2.029, 0.0}}};

at::Tensor rgb_to_yuv(const at::Tensor& x, const NumericValues&) { return mix(x, kRgbToYuv); }
at::Tensor yuv_to_rgb(const at::Tensor& x, const NumericValues&) { return mix(x, kYuvToRgb); }

const Matrix kRgbToXyz = {{{0.412453, 0.357580, 0.180423},
                           {0.212671, 0.715160, 0.072169},
                           {0.019334, 0.119193, 0.950227}}};
const Matrix kXyzToRgb = {{{3.2404813432005266, -1.5371515162713185, -0.4985363261688878},
                           {-0.9692549499965682, 1.8759900014898907, 0.0415559265582928},
                           {0.0556466391351772, -0.2040413383665112, 1.0573110696453443}}};
const std::vector<double> kWhite = {0.95047, 1.0, 1.08883};

at::Tensor rgb_to_lab(const at::Tensor& x, const NumericValues&) {
  const auto linear = image::choose(x.gt(0.04045), ((x + 0.055) / 1.055).pow(2.4), x / 12.92);
  const auto t = mix(linear, kRgbToXyz) / image::per_channel(kWhite, x.options());
  const double threshold = 0.008856;
  const auto f = image::choose(t.gt(threshold), t.clamp_min(threshold).pow(1.0 / 3.0), t * 7.787 + 4.0 / 29.0);
  const auto fx = channel(f, 0), fy = channel(f, 1), fz = channel(f, 2);
  return at::cat({fy * 116.0 - 16.0, (fx - fy) * 500.0, (fy - fz) * 200.0}, 1);
}

at::Tensor lab_to_rgb(const at::Tensor& x, const NumericValues&) {
  const auto fy = (channel(x, 0) + 16.0) / 116.0;
  const auto fx = channel(x, 1) / 500.0 + fy;
  const auto fz = (fy - channel(x, 2) / 200.0).clamp_min(0.0);
  const auto f = at::cat({fx, fy, fz}, 1);
  const auto t = image::choose(f.gt(0.2068966), f.pow(3.0), (f - 4.0 / 29.0) / 7.787);
  const auto linear = mix(t * image::per_channel(kWhite, x.options()), kXyzToRgb).clamp_min(0.0);
  const auto srgb = image::choose(linear.gt(0.0031308), linear.clamp_min(0.0031308).pow(1.0 / 2.4) * 1.055 - 0.055,
                                  linear * 12.92);
  return srgb.clamp(0.0, 1.0);
}

void add(TransformRegistry& registry, const char* name, const char* description, bool differentiable,
         NumericApply fn) {
  registry.add(make_numeric_transform(
      Describe(name, "color_space", description).dtypes(kFloatDtypes).differentiable(differentiable), {},
      Channels::kRgb, std::move(fn)));
}

}  // namespace

void register_color_space_conversions(TransformRegistry& registry) {
  add(registry, "rgb_to_hsv", "RGB to HSV, hue in radians (Kornia)", false, rgb_to_hsv);
  add(registry, "hsv_to_rgb", "HSV (hue in radians) to RGB (Kornia)", false, hsv_to_rgb);
  add(registry, "rgb_to_hls", "RGB to HLS, hue in radians (Kornia)", false, rgb_to_hls);
  add(registry, "hls_to_rgb", "HLS (hue in radians) to RGB (Kornia)", true, hls_to_rgb);
  add(registry, "rgb_to_ycbcr", "RGB to YCbCr, offsets 0.5 (Kornia)", true, rgb_to_ycbcr);
  add(registry, "ycbcr_to_rgb", "YCbCr to RGB, clamped to [0, 1] (Kornia)", true, ycbcr_to_rgb);
  add(registry, "rgb_to_yuv", "RGB to YUV (BT.601 analogue, Kornia)", true, rgb_to_yuv);
  add(registry, "yuv_to_rgb", "YUV to RGB (Kornia)", true, yuv_to_rgb);
  add(registry, "rgb_to_lab", "sRGB to CIE L*a*b* under D65 (Kornia)", true, rgb_to_lab);
  add(registry, "lab_to_rgb", "CIE L*a*b* to sRGB, clamped to [0, 1] (Kornia)", true, lab_to_rgb);
}

}  // namespace devparity
