// perspective(start, end) with torchvision v2's semantics: the 8
// coefficients c solving end -> start (_get_perspective_coeffs, in float64 on
// the host, then rounded to float32 as torchvision rounds them); output (i, j)
// reads ((c0 x + c1 y + c2) / (c6 x + c7 y + 1) - .5, (c3 x + c4 y + c5) / (...) - .5)
// at (x, y) = (j + .5, i + .5).

#include "harness/base/error.h"
#include "harness/subject/configured.h"
#include "harness/subject/fields.h"
#include "harness/transforms/geometry/warp_options.h"
#include "harness/transforms/kernels/grid_sampler.h"
#include "harness/transforms/kernels/linear_solve.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

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

struct PerspectiveConfig : DeclaredFields<PerspectiveConfig> {
  Corners start{}, end{};
  std::array<double, 8> coeffs{};
  WarpOptions warp;
  static void declare(Fields<PerspectiveConfig>& f) {
    f.field({"startpoints", "four [x, y]", "required", "corners in the input"},
            [](ObjectReader& r, PerspectiveConfig& c) { c.start = read_corners(r, "startpoints"); },
            [](const PerspectiveConfig& c, nlohmann::json& out) { out["startpoints"] = c.start; })
        // The coefficients are written with the end corners and recomputed when read back.
        .field({"endpoints", "four [x, y]", "required", "where they go in the output"},
               [](ObjectReader& r, PerspectiveConfig& c) {
                 c.end = read_corners(r, "endpoints");
                 const auto coeffs = perspective_coeffs(c.start, c.end);
                 if (!coeffs) {
                   throw FieldError(r.pointer("endpoints"), "the corners do not define a perspective (collinear)");
                 }
                 c.coeffs = *coeffs;
                 r.get("coefficients");
               },
               [](const PerspectiveConfig& c, nlohmann::json& out) {
                 out["endpoints"] = c.end;
                 out["coefficients"] = c.coeffs;
               })
        .part(&PerspectiveConfig::warp, Interpolation::kBilinear);
  }
  void check(c10::IntArrayRef shape) const { warp.check(shape); }
};

class Perspective final : public ConfiguredTransform<PerspectiveConfig> {
 public:
  Perspective()
      : ConfiguredTransform(
            Describe("perspective", "geometry",
                     "the projective map taking four start corners to four end corners (torchvision)")
                .derived("coefficients", "8 numbers", "from the corners",
                         "the projective map's coefficients (float32 values), recomputed from the corners when "
                         "read back")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const PerspectiveConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("perspective");
    if (x.size(0) == 0) return x.clone();
    const auto& k = c.coeffs;
    const auto [cols, rows] = warp_positions(x, sampler::compute_dtype(x), x.size(2), x.size(3), 0.5, 0.5);
    const auto den = (cols * k[6] + rows * k[7]).add(1.0);
    const auto sx = (cols * k[0] + rows * k[1]).add(k[2]).div(den).sub(0.5);
    const auto sy = (cols * k[3] + rows * k[4]).add(k[5]).div(den).sub(0.5);
    return warp_with(x, sx, sy, c.warp);
  }
};

}  // namespace

void register_perspective(TransformRegistry& registry) {
  registry.add(std::make_unique<Perspective>());
}

}  // namespace devparity
