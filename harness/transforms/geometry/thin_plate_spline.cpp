// thin_plate_spline(src, dst): the spline f with f(dst_i) = src_i,
// f(p) = a0 + a1 x + a2 y + sum_i w_i U(|p - dst_i|), U(r) = r^2 log r
// (as 0.5 d log(d + 1e-8), d = r^2), the weights solved from
// [K P; P^T 0] [w; a] = [src; 0] on the host (K_ij = U(|dst_i - dst_j|),
// P_i = (1, x_i, y_i)); points in [-1, 1] normalised coordinates; output
// pixel j sits at -1 + 2 j / (W - 1) (Kornia's create_meshgrid) and reads
// source f(p) through grid_sample's normalisation with align_corners.
// Kornia's RandomThinPlateSpline draws dst = src + U(-scale, scale) for the
// five points (+-1, +-1) and (0, 0); its get_tps_transform builds K from
// src-to-dst distances and centres the kernels on src, so its warp does not
// pass through its control points; this one does.

#include "harness/base/error.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/transforms/geometry/warp_options.h"
#include "harness/transforms/kernels/grid_sampler.h"
#include "harness/transforms/kernels/linear_solve.h"
#include "harness/transforms/random/draws.h"
#include "harness/transforms/random/random_transform.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

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

// Where the control points go, per sample: drawn, or given instead.
const random_draws::PerSample kDst{"dst", "[[[x, y], ...] per sample]", "where each goes in the output"};

// The spline's settings, declared once; dst is drawn (or given) per sample.
struct TpsSettings : DeclaredFields<TpsSettings> {
  double scale = 0.2;
  Points src = kTpsSource;
  bool align_corners = false;
  WarpOptions warp;
  static void declare(Fields<TpsSettings>& f) {
    f.number("scale", &TpsSettings::scale, 0.2, 0.0, 1e3, "number >= 0", "dst = src + U(-scale, scale) per coordinate")
        .field({"src", "[[x, y], ...] in [-1, 1]", "the corners and the centre", "source control points"},
               [](ObjectReader& r, TpsSettings& c) {
                 if (r.has("src")) c.src = read_points(*r.get("src"), r.pointer("src"));
               },
               [](const TpsSettings& c, nlohmann::json& out) { out["src"] = c.src; })
        .boolean("align_corners", &TpsSettings::align_corners, false, "grid_sample's normalisation, as Kornia's default")
        .part(&TpsSettings::warp, Interpolation::kBilinear);
  }
  void check(c10::IntArrayRef shape) const { warp.check(shape); }
};

class ThinPlateSpline final : public RandomTransform<TpsSettings> {
 public:
  ThinPlateSpline()
      : RandomTransform(
            Describe("thin_plate_spline", "geometry",
                     "a thin-plate-spline warp through control points (Kornia's RandomThinPlateSpline draws)")
                .params({kDst.doc()})
                .dtypes(kImageDtypes)
                .differentiable()) {}

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p) const override {
    DEVPARITY_TRACE_SCOPE("thin_plate_spline");
    require_nchw(x.sizes(), info_.name);
    ObjectReader r(p);
    const auto settings = TpsSettings::read(r);
    const auto& src = settings.src;
    const auto dst = read_dst(*r.get("dst"), "/dst", x.size(0), src.size());
    const auto& warp = settings.warp;
    const bool align = settings.align_corners;
    if (x.size(0) == 0) return x.clone();
    const int64_t h = x.size(2), w = x.size(3);
    const auto dtype = sampler::compute_dtype(x);
    // Kornia's meshgrid: linspace(-1, 1) along each axis.
    auto [cols, rows] = warp_positions(x, dtype, h, w, 0.0, 0.0);
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

  void draw(const TpsSettings& settings, ObjectReader& r, c10::IntArrayRef shape, at::Generator& gen,
            nlohmann::json& out) const override {
    const auto& src = settings.src;
    const double scale = settings.scale;
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
    if (const auto* v = r.get(kDst.name); v != nullptr) dst = read_dst(*v, r.pointer(kDst.name), batch, src.size());
    for (size_t b = 0; b < dst.size(); ++b) {
      if (!tps_weights(dst[b], src)) {
        throw FieldError("/dst/" + std::to_string(b), "the points do not define a spline (collinear or repeated)");
      }
    }
    out[kDst.name] = dst;
  }
};

}  // namespace

void register_thin_plate_spline(TransformRegistry& registry) {
  registry.add(std::make_unique<ThinPlateSpline>());
}

}  // namespace devparity
