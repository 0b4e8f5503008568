// Geometric warps with torchvision v2's semantics
// (transforms/v2/functional/_geometry.py), sampled by kernels/grid_sampler.h:
//
//   affine(angle, translate, scale, shear, center): the inverse map
//     M^-1 = C RSS^-1 C^-1 T^-1 of _get_inverse_affine_matrix, with
//     RSS = [a b; c d] / scale^-1, a = cos(r - sy) / cos(sy),
//     b = -(a tan(sx) + sin(r)), c = sin(r - sy) / cos(sy), d = cos(r) - c tan(sx)
//     (r, sx, sy in radians; C the centre, default the image centre, in
//     coordinates centred on the image); output pixel (i, j) at centred
//     (j + .5 - W / 2, i + .5 - H / 2) reads source pixel M^-1 (x, y, 1) +
//     (W / 2 - .5, H / 2 - .5)
//   rotate(angle, expand): affine with -angle (counter-clockwise), no
//     translation, unit scale, no shear; expand sizes the output to the
//     rotated corners' box (_compute_affine_output_size, float32, 1e-4
//     truncation), centred on it. About the image centre, a multiple of 90
//     degrees is exact as torchvision makes it: 0 a copy, 180 and (with
//     expand or a square image) 90 and 270 a rot90 of the pixels
//   perspective(start, end): the 8 coefficients c solving end -> start
//     (_get_perspective_coeffs, in float64 on the host, then rounded to
//     float32 as torchvision rounds them); output (i, j) reads
//     ((c0 x + c1 y + c2) / (c6 x + c7 y + 1) - .5, (c3 x + c4 y + c5) / (...) - .5)
//     at (x, y) = (j + .5, i + .5)
//   elastic(alpha, sigma): torchvision's ElasticTransform draws: dx = 2 U - 1
//     on an H x W field, blurred (reflect) with kernel int(8 sigma + 1) made
//     odd, times alpha_x / H; dy likewise with alpha_y / W; source = (j +
//     dx W / 2, i + dy H / 2). The field is registered state made on the CPU
//     from a drawn seed, so it follows the subject to the device.
//   thin_plate_spline(src, dst): the spline f with f(dst_i) = src_i,
//     f(p) = a0 + a1 x + a2 y + sum_i w_i U(|p - dst_i|), U(r) = r^2 log r
//     (as 0.5 d log(d + 1e-8), d = r^2), the weights solved from
//     [K P; P^T 0] [w; a] = [src; 0] on the host (K_ij = U(|dst_i - dst_j|),
//     P_i = (1, x_i, y_i)); points in [-1, 1] normalised coordinates; output
//     pixel j sits at -1 + 2 j / (W - 1) (Kornia's create_meshgrid) and reads
//     source f(p) through grid_sample's normalisation with align_corners.
//     Kornia's RandomThinPlateSpline draws dst = src + U(-scale, scale) for the
//     five points (+-1, +-1) and (0, 0); its get_tps_transform builds K from
//     src-to-dst distances and centres the kernels on src, so its warp does
//     not pass through its control points; this one does.
//
// uint8 runs in float32 and is rounded back; fill blends towards a colour
// where the sampled area left the image (zeros padding only). padding_mode
// adds grid_sample's border and reflection modes.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/generator_seed.h"
#include "harness/subject/state.h"
#include "harness/subject/stateful_image.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/grid_sampler.h"
#include "harness/transforms/kernels/linear_solve.h"
#include "harness/transforms/kernels/resize_and_blur.h"
#include "harness/transforms/random/draws.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace devparity {
namespace {

constexpr double kDegree = M_PI / 180.0;

struct WarpOptions {
  Interpolation interpolation = Interpolation::kBilinear;
  Padding padding = Padding::kZeros;
  std::vector<double> fill;  // empty: plain zeros

  static WarpOptions read(ObjectReader& r, Interpolation default_interpolation) {
    WarpOptions o;
    o.interpolation = read_mode(r, "interpolation", default_interpolation,
                                {Interpolation::kNearest, Interpolation::kBilinear, Interpolation::kBicubic});
    o.padding = read_mode(r, "padding_mode", Padding::kZeros, {Padding::kZeros, Padding::kBorder, Padding::kReflection});
    if (auto fill = random_draws::read_per_channel(r, "fill", -1e6, 1e6)) o.fill = std::move(*fill);
    return o;
  }
  void check(c10::IntArrayRef shape) const {
    if (fill.size() > 1 && static_cast<int64_t>(fill.size()) != shape[1]) {
      throw FieldError("/fill", fmt::format("{} values for {} channels", fill.size(), shape[1]));
    }
  }
  void write(nlohmann::json& out) const {
    out["interpolation"] = name_of(interpolation);
    out["padding_mode"] = name_of(padding);
    out["fill"] = fill.empty() ? nlohmann::json(nullptr) : nlohmann::json(fill);
  }
};

// The resampling parameters every warp takes.
std::vector<ParamDoc> warp_docs(Interpolation default_interpolation) {
  return {{"interpolation", "nearest|bilinear|bicubic", fmt::format("\"{}\"", name_of(default_interpolation)),
           "grid_sample's sampling mode"},
          {"padding_mode", "zeros|border|reflection", "\"zeros\"", "grid_sample's padding"},
          {"fill", "number, [per channel] or null", "null",
           "colour of the area from outside the image (zeros padding; in the dtype's units)"}};
}

// A number, or a list of one or two (one repeated).
std::pair<double, double> read_pair(ObjectReader& r, const std::string& key, std::pair<double, double> fallback,
                                    double lo, double hi) {
  const auto* v = r.get(key);
  if (v == nullptr) return fallback;
  if (v->is_number()) {
    const double x = r.number(key, std::nullopt, lo, hi);
    return {x, x};
  }
  const auto values = r.numbers(key, 0, lo, hi);
  if (values.size() == 1) return {values[0], values[0]};
  if (values.size() != 2) throw FieldError(r.pointer(key), "expected a number or [x, y]");
  return {values[0], values[1]};
}

// torchvision's _get_inverse_affine_matrix (inverted), row-major 2x3.
std::array<double, 6> inverse_affine(std::pair<double, double> center, double angle, std::pair<double, double> translate,
                                     double scale, std::pair<double, double> shear) {
  const double rot = angle * kDegree, sx = shear.first * kDegree, sy = shear.second * kDegree;
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -(a * std::tan(sx) + std::sin(rot));
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = std::cos(rot) - c * std::tan(sx);
  std::array<double, 6> m = {d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0};
  const double cx = center.first + translate.first, cy = center.second + translate.second;
  m[2] += m[0] * -cx + m[1] * -cy + center.first;
  m[5] += m[3] * -cx + m[4] * -cy + center.second;
  return m;
}

// Output pixel positions as (1, 1, W) columns and (1, H, 1) rows plus
// `offset`, in dtype, on the device of `like`.
std::pair<at::Tensor, at::Tensor> positions(const at::Tensor& like, c10::ScalarType dtype, int64_t h, int64_t w,
                                            double offset_x, double offset_y) {
  const auto options = like.options().dtype(dtype);
  return {at::arange(w, options).add(offset_x).reshape({1, 1, w}), at::arange(h, options).add(offset_y).reshape({1, h, 1})};
}

// The output reads source pixel M (x, y, 1) + (W / 2 - .5, H / 2 - .5) at
// output pixel centres (x, y) centred on an oh x ow output.
at::Tensor affine_warp(const at::Tensor& x, const std::array<double, 6>& m, const WarpOptions& o, int64_t oh = -1,
                       int64_t ow = -1) {
  const int64_t h = x.size(2), w = x.size(3);
  if (oh < 0) oh = h, ow = w;
  const auto [cols, rows] = positions(x, sampler::compute_dtype(x), oh, ow, 0.5 - ow / 2.0, 0.5 - oh / 2.0);
  const auto sx = (cols * m[0] + rows * m[1]).add(m[2] + w / 2.0 - 0.5);
  const auto sy = (cols * m[3] + rows * m[4]).add(m[5] + h / 2.0 - 0.5);
  return sampler::warp(x, sx, sy, o.interpolation, o.padding, o.fill);
}

// torchvision's _compute_affine_output_size, in float32 as it computes: the
// corners mapped by `m`, their box truncated to 1e-4 (so 1e-15 does not ceil
// to a whole pixel), then ceil/floor. Returns (height, width).
std::pair<int64_t, int64_t> expanded_size(const std::array<double, 6>& m, int64_t h, int64_t w) {
  const float hw = 0.5f * static_cast<float>(w), hh = 0.5f * static_cast<float>(h);
  const float corners[4][2] = {{-hw, -hh}, {-hw, hh}, {hw, hh}, {hw, -hh}};
  float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (const auto& c : corners) {
    for (int r = 0; r < 2; ++r) {
      const float v = c[0] * static_cast<float>(m[3 * r]) + c[1] * static_cast<float>(m[3 * r + 1]) +
                      static_cast<float>(m[3 * r + 2]);
      lo[r] = std::min(lo[r], v);
      hi[r] = std::max(hi[r], v);
    }
  }
  const float halfs[2] = {hw, hh};
  int64_t size[2];
  for (int r = 0; r < 2; ++r) {
    const float top = std::ceil(std::trunc((hi[r] + halfs[r]) * 10000.0f) * 1e-4f);
    const float bottom = std::floor(std::trunc((lo[r] + halfs[r]) * 10000.0f) * 1e-4f);
    size[r] = static_cast<int64_t>(top - bottom);
  }
  return {size[1], size[0]};
}

std::optional<std::pair<double, double>> read_center(ObjectReader& r) {
  const auto* v = r.get("center");
  if (v == nullptr || v->is_null()) return std::nullopt;
  const auto c = r.numbers("center", 2, -1e6, 1e6);
  return std::make_pair(c[0], c[1]);
}

// The centre in torchvision's centred coordinates (pixels from the middle).
std::pair<double, double> centred(const std::optional<std::pair<double, double>>& center, c10::IntArrayRef shape) {
  if (!center) return {0.0, 0.0};
  return {center->first - shape[3] * 0.5, center->second - shape[2] * 0.5};
}

void write_center(nlohmann::json& out, const std::optional<std::pair<double, double>>& center) {
  out["center"] = center ? nlohmann::json({center->first, center->second}) : nlohmann::json(nullptr);
}

// torchvision: a number s is the shear (s, 0) (along x only).
std::pair<double, double> read_shear(ObjectReader& r) {
  if (const auto* v = r.get("shear"); v != nullptr && v->is_number()) {
    return {r.number("shear", std::nullopt, -89.0, 89.0), 0.0};
  }
  return read_pair(r, "shear", {0, 0}, -89.0, 89.0);
}

// ---------------------------------------------------------------- rotate

// The fields every warp ends with: the centre, then the resampling options.
template <typename Config>
void add_center_and_warp(Fields<Config>& f, Interpolation default_interpolation) {
  f.field({"center", "[x, y] or null", "null", "pixel coordinates; null: the image centre"},
          [](ObjectReader& r, Config& c) { c.center = read_center(r); },
          [](const Config& c, nlohmann::json& out) { write_center(out, c.center); })
      .group(warp_docs(default_interpolation),
             [=](ObjectReader& r, Config& c) { c.warp = WarpOptions::read(r, default_interpolation); },
             [](const Config& c, nlohmann::json& out) { c.warp.write(out); });
}

struct RotateConfig : DeclaredFields<RotateConfig> {
  double angle = 0;
  bool expand = false;
  std::optional<std::pair<double, double>> center;
  WarpOptions warp;
  static const Fields<RotateConfig>& fields() {
    static const auto f = [] {
      Fields<RotateConfig> f;
      f.number("angle", &RotateConfig::angle, std::nullopt, -1e4, 1e4, "number (degrees)", "counter-clockwise")
          .boolean("expand", &RotateConfig::expand, false, "grow the output to hold the whole rotated image");
      add_center_and_warp(f, Interpolation::kNearest);
      return f;
    }();
    return f;
  }
  void check(c10::IntArrayRef shape) const { warp.check(shape); }
};

// torchvision's fast paths of rotate (about the image centre only): angle
// % 360 of 0 is a copy, 180 reverses rows and columns, and 90 and 270 (with
// expand, or on a square image) are torch.rot90, pixels moved exactly.
std::optional<at::Tensor> quarter_turn(const at::Tensor& x, const RotateConfig& c) {
  if (c.center) return std::nullopt;
  double turn = std::fmod(c.angle, 360.0);
  if (turn < 0) turn += 360.0;
  if (turn == 0.0) return x.clone();
  if (turn == 180.0) return resample::reversed_along(resample::reversed_along(x, 2), 3);
  if ((turn != 90.0 && turn != 270.0) || !(c.expand || x.size(2) == x.size(3))) return std::nullopt;
  // rot90 k=1: flip the columns, then swap the axes; k=3: flip the rows first.
  return resample::reversed_along(x, turn == 90.0 ? 3 : 2).transpose(2, 3).contiguous();
}

class Rotate final : public ConfiguredTransform<RotateConfig> {
 public:
  Rotate()
      : ConfiguredTransform(
            Describe("rotate", "geometry",
                     "rotation counter-clockwise about the centre, optionally expanded to fit (torchvision)")
                .params(RotateConfig::fields().docs())
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const RotateConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("rotate");
    if (auto turned = quarter_turn(x, c)) return *turned;
    const auto m = inverse_affine(centred(c.center, x.sizes()), -c.angle, {0, 0}, 1.0, {0, 0});
    if (!c.expand) return affine_warp(x, m, c.warp);
    const auto [oh, ow] = expanded_size(m, x.size(2), x.size(3));
    return affine_warp(x, m, c.warp, oh, ow);
  }
};

// ---------------------------------------------------------------- affine

struct AffineConfig : DeclaredFields<AffineConfig> {
  double angle = 0, scale = 1;
  std::pair<double, double> translate{0, 0}, shear{0, 0};
  std::optional<std::pair<double, double>> center;
  WarpOptions warp;
  static const Fields<AffineConfig>& fields() {
    static const auto f = [] {
      Fields<AffineConfig> f;
      f.number("angle", &AffineConfig::angle, 0.0, -1e4, 1e4, "number (degrees)", "clockwise, as torchvision's affine")
          .field({"translate", "[tx, ty] pixels", "[0, 0]", "shift after the rotation, scale and shear"},
                 [](ObjectReader& r, AffineConfig& c) { c.translate = read_pair(r, "translate", {0, 0}, -1e6, 1e6); },
                 [](const AffineConfig& c, nlohmann::json& out) {
                   out["translate"] = {c.translate.first, c.translate.second};
                 })
          .number("scale", &AffineConfig::scale, 1.0, 1e-6, 1e6, "number > 0", "zoom about the centre")
          .field({"shear", "s (along x) or [sx, sy] degrees in [-89, 89]", "[0, 0]", "shear angles, torchvision's"},
                 [](ObjectReader& r, AffineConfig& c) { c.shear = read_shear(r); },
                 [](const AffineConfig& c, nlohmann::json& out) { out["shear"] = {c.shear.first, c.shear.second}; });
      add_center_and_warp(f, Interpolation::kNearest);
      return f;
    }();
    return f;
  }
  void check(c10::IntArrayRef shape) const { warp.check(shape); }
};

class Affine final : public ConfiguredTransform<AffineConfig> {
 public:
  Affine()
      : ConfiguredTransform(
            Describe("affine", "geometry",
                     "rotation, translation, scale and shear about the centre (torchvision)")
                .params(AffineConfig::fields().docs())
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const AffineConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("affine");
    return affine_warp(x, inverse_affine(centred(c.center, x.sizes()), c.angle, c.translate, c.scale, c.shear), c.warp);
  }
};

// ---------------------------------------------------------------- perspective

using Corners = std::array<std::array<double, 2>, 4>;

Corners read_corners(ObjectReader& r, const std::string& key) {
  const auto* v = r.get(key);
  const auto ptr = r.pointer(key);
  if (v == nullptr) throw FieldError(ptr, "required: four [x, y] corners");
  if (!v->is_array() || v->size() != 4) throw FieldError(ptr, "expected four [x, y] corners");
  Corners out{};
  for (size_t i = 0; i < 4; ++i) {
    const auto& p = (*v)[i];
    const auto pi = ptr + "/" + std::to_string(i);
    if (!p.is_array() || p.size() != 2) throw FieldError(pi, "expected [x, y]");
    out[i] = {read_number(p[0], pi + "/0", -1e6, 1e6), read_number(p[1], pi + "/1", -1e6, 1e6)};
  }
  return out;
}

// The 8x8 system of _get_perspective_coeffs: each end corner (px, py)
// with its start corner (sx, sy) gives two rows; nullopt when the corners are
// degenerate.
std::optional<std::array<double, 8>> perspective_coeffs(const Corners& start, const Corners& end) {
  std::vector<double> a, b;
  for (int i = 0; i < 4; ++i) {
    const double px = end[i][0], py = end[i][1], sx = start[i][0], sy = start[i][1];
    a.insert(a.end(), {px, py, 1, 0, 0, 0, -sx * px, -sx * py});
    a.insert(a.end(), {0, 0, 0, px, py, 1, -sy * px, -sy * py});
    b.insert(b.end(), {sx, sy});
  }
  const auto x = solve_linear(std::move(a), std::move(b), 8, 1);
  if (!x) return std::nullopt;
  // torchvision hands the solution on as float32 (.to(torch.float32).tolist()).
  std::array<double, 8> c{};
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<double>(static_cast<float>((*x)[i]));
  return c;
}

struct PerspectiveConfig {
  Corners start{}, end{};
  std::array<double, 8> coeffs{};
  WarpOptions warp;
  static PerspectiveConfig read(ObjectReader& r) {
    PerspectiveConfig c;
    c.start = read_corners(r, "startpoints");
    c.end = read_corners(r, "endpoints");
    const auto coeffs = perspective_coeffs(c.start, c.end);
    if (!coeffs) throw FieldError(r.pointer("endpoints"), "the corners do not define a perspective (collinear)");
    c.coeffs = *coeffs;
    c.warp = WarpOptions::read(r, Interpolation::kBilinear);
    r.get("coefficients");  // written by write(), recomputed here
    return c;
  }
  void check(c10::IntArrayRef shape) const { warp.check(shape); }
  void write(nlohmann::json& out) const {
    out["startpoints"] = start;
    out["endpoints"] = end;
    out["coefficients"] = coeffs;
    warp.write(out);
  }
};

class Perspective final : public ConfiguredTransform<PerspectiveConfig> {
 public:
  Perspective()
      : ConfiguredTransform(
            Describe("perspective", "geometry",
                     "the projective map taking four start corners to four end corners (torchvision)")
                .param("startpoints", "four [x, y]", "required", "corners in the input")
                .param("endpoints", "four [x, y]", "required", "where they go in the output")
                .params(warp_docs(Interpolation::kBilinear))
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const PerspectiveConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("perspective");
    if (x.size(0) == 0) return x.clone();
    const auto& k = c.coeffs;
    const auto [cols, rows] = positions(x, sampler::compute_dtype(x), x.size(2), x.size(3), 0.5, 0.5);
    const auto den = (cols * k[6] + rows * k[7]).add(1.0);
    const auto sx = (cols * k[0] + rows * k[1]).add(k[2]).div(den).sub(0.5);
    const auto sy = (cols * k[3] + rows * k[4]).add(k[5]).div(den).sub(0.5);
    return sampler::warp(x, sx, sy, c.warp.interpolation, c.warp.padding, c.warp.fill);
  }
};

// ---------------------------------------------------------------- elastic

int64_t elastic_kernel(double sigma) {
  auto k = static_cast<int64_t>(8 * sigma + 1);
  return k % 2 == 0 ? k + 1 : k;
}

class Elastic final : public StatefulImageTransform {
 public:
  Elastic()
      : StatefulImageTransform(
            Describe(
                "elastic_transform", "geometry",
                "torchvision's ElasticTransform: a smoothed random displacement field (registered state); "
                "uint8 results are rounded and saturated to 0..255, where torchvision 0.21 rounds bicubic "
                "overshoot without clamping, so it wraps (279 becomes 23)")
                .param("alpha", "number or [ax, ay] >= 0", "[50, 50]", "displacement strength in pixels")
                .param("sigma", "number or [sx, sy] >= 0", "[5, 5]", "smoothness of the field")
                .param("seed", "integer >= 0", "drawn", "seed of the field (reports give it, to replay)")
                .params(warp_docs(Interpolation::kBilinear))
                .dtypes(kImageDtypes)
                .random()
                .differentiable()) {}
  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape, at::Generator& gen) const override {
    require_nchw(shape, info_.name);
    ObjectReader r(given);
    nlohmann::json out = read_fixed(r, shape);
    out["seed"] = r.has("seed") ? static_cast<uint64_t>(r.integer("seed", std::nullopt, 0, int64_t{1} << 53))
                                : draw_seed(gen);
    r.finish();
    out["size"] = {shape[2], shape[3]};
    return out;
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json& p) const override {
    const auto size = p.at("size").get<std::vector<int64_t>>();
    const auto alpha = p.at("alpha").get<std::vector<double>>();
    const auto sigma = p.at("sigma").get<std::vector<double>>();
    auto gen = at::make_generator<at::CPUGeneratorImpl>(p.at("seed").get<uint64_t>());
    // torchvision's draw order: dx, blurred, scaled; then dy.
    auto field = [&](int axis, double scale) {
      auto d = at::rand({1, 1, size[0], size[1]}, gen, at::kFloat) * 2 - 1;
      if (sigma[static_cast<size_t>(axis)] > 0.0) {
        const auto k = elastic_kernel(sigma[static_cast<size_t>(axis)]);
        d = gaussian_blur(d, k, k, {{sigma[1], sigma[0]}}, Border::kReflect);
      }
      return d * alpha[static_cast<size_t>(axis)] / scale;
    };
    const auto dx = field(0, static_cast<double>(size[0]));
    const auto dy = field(1, static_cast<double>(size[1]));
    auto state = std::make_unique<TransformState>();
    state->register_tensor("displacement", at::cat({dx, dy}, 1));
    return state;
  }

  at::Tensor run(const at::Tensor& x, const nlohmann::json& p, TransformState& state) const override {
    ObjectReader r(p);
    const auto o = WarpOptions::read(r, Interpolation::kBilinear);
    const auto size = r.integers("size", 2, 1, int64_t{1} << 31);
    TORCH_CHECK(size[0] == x.size(2) && size[1] == x.size(3), "elastic_transform: a field for ", size[0], "x",
                size[1], ", input ", x.sizes());
    const int64_t h = x.size(2), w = x.size(3);
    const auto dtype = sampler::compute_dtype(x);
    const auto field = state.tensor("displacement").to(dtype);
    const auto [cols, rows] = positions(x, dtype, h, w, 0.0, 0.0);
    const auto sx = cols + field.select(1, 0) * (w / 2.0);
    const auto sy = rows + field.select(1, 1) * (h / 2.0);
    return sampler::warp(x, sx, sy, o.interpolation, o.padding, o.fill);
  }

 private:
  nlohmann::json read_fixed(ObjectReader& r, c10::IntArrayRef shape) const {
    const auto alpha = read_pair(r, "alpha", {50, 50}, 0, 1e6);
    const auto sigma = read_pair(r, "sigma", {5, 5}, 0, 1e3);
    const auto warp = WarpOptions::read(r, Interpolation::kBilinear);
    warp.check(shape);
    nlohmann::json out = {{"alpha", {alpha.first, alpha.second}}, {"sigma", {sigma.first, sigma.second}}};
    warp.write(out);
    return out;
  }

};

// ---------------------------------------------------------------- thin plate spline

using Points = std::vector<std::array<double, 2>>;

Points read_points(const nlohmann::json& v, const std::string& ptr) {
  if (!v.is_array() || v.size() < 3) throw FieldError(ptr, "expected three or more [x, y] points");
  Points out;
  for (size_t i = 0; i < v.size(); ++i) {
    const auto pi = ptr + "/" + std::to_string(i);
    if (!v[i].is_array() || v[i].size() != 2) throw FieldError(pi, "expected [x, y]");
    out.push_back({read_number(v[i][0], pi + "/0", -1e3, 1e3), read_number(v[i][1], pi + "/1", -1e3, 1e3)});
  }
  return out;
}

double tps_kernel(double squared) { return 0.5 * squared * std::log(squared + 1e-8); }

// Kernel weights (n x 2) then affine weights (3 x 2), row-major, of the
// spline taking `centers` to `targets`; nullopt when the system is singular.
std::optional<std::vector<double>> tps_weights(const Points& centers, const Points& targets) {
  const int n = static_cast<int>(centers.size()), size = n + 3;
  std::vector<double> l(static_cast<size_t>(size * size), 0.0), rhs(static_cast<size_t>(size * 2), 0.0);
  auto at = [&](int r, int c) -> double& { return l[static_cast<size_t>(r * size + c)]; };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double dx = centers[i][0] - centers[j][0], dy = centers[i][1] - centers[j][1];
      at(i, j) = tps_kernel(dx * dx + dy * dy);
    }
    const double p[3] = {1.0, centers[i][0], centers[i][1]};
    for (int k = 0; k < 3; ++k) at(i, n + k) = at(n + k, i) = p[k];
    rhs[static_cast<size_t>(i * 2)] = targets[i][0];
    rhs[static_cast<size_t>(i * 2 + 1)] = targets[i][1];
  }
  return solve_linear(std::move(l), std::move(rhs), size, 2);
}

const Points kTpsSource = {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}, {0, 0}};

class ThinPlateSpline final : public Described<Transform> {
 public:
  ThinPlateSpline()
      : Described(
            Describe("thin_plate_spline", "geometry",
                     "a thin-plate-spline warp through control points (Kornia's RandomThinPlateSpline draws)")
                .param("scale", "number >= 0", "0.2", "dst = src + U(-scale, scale) per coordinate")
                .param("src", "[[x, y], ...] in [-1, 1]", "the corners and the centre",
                       "source control points")
                .param("dst", "[[[x, y], ...] per sample]", "drawn", "where each goes in the output")
                .param("align_corners", "bool", "false", "grid_sample's normalisation, as Kornia's default")
                .params(warp_docs(Interpolation::kBilinear))
                .dtypes(kImageDtypes)
                .random()
                .differentiable()) {}
  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape, at::Generator& gen) const override {
    require_nchw(shape, info_.name);
    ObjectReader r(given);
    const double scale = r.number("scale", 0.2, 0.0, 1e3);
    const auto src = r.has("src") ? read_points(*r.get("src"), r.pointer("src")) : kTpsSource;
    const auto warp = WarpOptions::read(r, Interpolation::kBilinear);
    warp.check(shape);
    const bool align = r.boolean("align_corners", false);
    const int64_t batch = shape[0], n = static_cast<int64_t>(src.size());
    std::vector<Points> dst;
    const auto u = at::rand({batch, n, 2}, gen, at::kFloat);
    for (int64_t b = 0; b < batch; ++b) {
      Points row;
      for (int64_t i = 0; i < n; ++i) {
        row.push_back({src[i][0] + (-scale + u[b][i][0].item<double>() * 2 * scale),
                       src[i][1] + (-scale + u[b][i][1].item<double>() * 2 * scale)});
      }
      dst.push_back(row);
    }
    if (const auto* v = r.get("dst"); v != nullptr) dst = read_dst(*v, r.pointer("dst"), batch, src.size());
    r.finish();
    for (size_t b = 0; b < dst.size(); ++b) {
      if (!tps_weights(dst[b], src)) {
        throw FieldError("/dst/" + std::to_string(b), "the points do not define a spline (collinear or repeated)");
      }
    }
    nlohmann::json out = {{"scale", scale}, {"src", src}, {"dst", dst}, {"align_corners", align}};
    warp.write(out);
    return out;
  }

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p) const override {
    DEVPARITY_TRACE_SCOPE("thin_plate_spline");
    require_nchw(x.sizes(), info_.name);
    ObjectReader r(p);
    const auto src = read_points(*r.get("src"), "/src");
    const auto dst = read_dst(*r.get("dst"), "/dst", x.size(0), src.size());
    const auto warp = WarpOptions::read(r, Interpolation::kBilinear);
    const bool align = r.boolean("align_corners", false);
    if (x.size(0) == 0) return x.clone();
    const int64_t h = x.size(2), w = x.size(3);
    const auto dtype = sampler::compute_dtype(x);
    // Kornia's meshgrid: linspace(-1, 1) along each axis.
    auto [cols, rows] = positions(x, dtype, h, w, 0.0, 0.0);
    cols = w > 1 ? cols * (2.0 / (w - 1)) - 1.0 : cols - 1.0;
    rows = h > 1 ? rows * (2.0 / (h - 1)) - 1.0 : rows - 1.0;
    std::vector<at::Tensor> xs, ys;
    for (size_t b = 0; b < dst.size(); ++b) {
      const auto weights = *tps_weights(dst[b], src);
      const size_t n = src.size();
      auto gx = (cols * weights[(n + 1) * 2] + rows * weights[(n + 2) * 2]).add(weights[n * 2]);
      auto gy = (cols * weights[(n + 1) * 2 + 1] + rows * weights[(n + 2) * 2 + 1]).add(weights[n * 2 + 1]);
      for (size_t i = 0; i < n; ++i) {
        const auto d = (cols - dst[b][i][0]).pow(2) + (rows - dst[b][i][1]).pow(2);
        const auto u = d.mul(0.5).mul(d.add(1e-8).log());
        gx = gx + u * weights[i * 2];
        gy = gy + u * weights[i * 2 + 1];
      }
      xs.push_back(gx);
      ys.push_back(gy);
    }
    auto pixel = [&](const at::Tensor& g, int64_t size) {
      return align ? (g + 1.0) * ((size - 1) / 2.0) : ((g + 1.0) * size - 1.0) / 2.0;
    };
    return sampler::warp(x, pixel(at::cat(xs, 0), w), pixel(at::cat(ys, 0), h), warp.interpolation, warp.padding,
                         warp.fill);
  }

 private:
  static std::vector<Points> read_dst(const nlohmann::json& v, const std::string& ptr, int64_t batch, size_t n) {
    if (!v.is_array() || static_cast<int64_t>(v.size()) != batch) {
      throw FieldError(ptr, fmt::format("expected one list of points per sample ({})", batch));
    }
    std::vector<Points> out;
    for (size_t b = 0; b < v.size(); ++b) {
      out.push_back(read_points(v[b], ptr + "/" + std::to_string(b)));
      if (out.back().size() != n) throw FieldError(ptr + "/" + std::to_string(b), fmt::format("expected {} points", n));
    }
    return out;
  }

};

}  // namespace

void register_warps(TransformRegistry& registry) {
  registry.add(std::make_unique<Rotate>());
  registry.add(std::make_unique<Affine>());
  registry.add(std::make_unique<Perspective>());
  registry.add(std::make_unique<Elastic>());
  registry.add(std::make_unique<ThinPlateSpline>());
}

}  // namespace devparity
