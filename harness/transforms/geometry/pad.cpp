// pad with torchvision v2's parameters (transforms/v2/functional/_geometry.py
// pad): padding p | [left/right, top/bottom] | [left, top, right, bottom];
// padding_mode constant (fill) | edge | reflect (mirror without the edge) |
// symmetric (mirror with the edge), plus circular (wrap around, Kornia's and
// torch.nn.functional.pad's). Output pixel (i, j) reads the source position
// that the mode gives for (i - top, j - left); reflect and symmetric fold
// repeatedly, so padding wider than the image is defined (LibTorch refuses
// reflect there).

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

// p, [left/right, top/bottom] or [left, top, right, bottom].
void read_padding(ObjectReader& r, int64_t (&sides)[4]) {
  const auto* v = r.get("padding");
  if (v == nullptr) throw FieldError(r.pointer("padding"), "required");
  const int64_t most = 1 << 14;
  auto& [left, top, right, bottom] = sides;
  if (v->is_number()) {
    left = top = right = bottom = r.integer("padding", std::nullopt, 0, most);
    return;
  }
  const auto p = r.integers("padding", 0, 0, most);
  if (p.size() == 1) {
    left = top = right = bottom = p[0];
  } else if (p.size() == 2) {
    left = right = p[0];
    top = bottom = p[1];
  } else if (p.size() == 4) {
    left = p[0], top = p[1], right = p[2], bottom = p[3];
  } else {
    throw FieldError(r.pointer("padding"), "expected 1, 2 or 4 integers");
  }
}

struct PadConfig : DeclaredFields<PadConfig> {
  int64_t sides[4] = {0, 0, 0, 0};  // left, top, right, bottom
  Border mode = Border::kConstant;
  double fill = 0.0;
  static void declare(Fields<PadConfig>& f) {
    f.field({"padding", "p, [lr, tb] or [l, t, r, b] integers >= 0", "required", "pixels per side"},
            [](ObjectReader& r, PadConfig& c) { read_padding(r, c.sides); },
            [](const PadConfig& c, nlohmann::json& out) { out["padding"] = c.sides; })
        .choice("padding_mode", &PadConfig::mode, Border::kConstant,
                {{Border::kConstant, "constant"}, {Border::kReplicate, "edge"}, {Border::kReflect, "reflect"},
                 {Border::kSymmetric, "symmetric"}, {Border::kCircular, "circular"}},
                "how the border is filled (torchvision's pad)")
        .number("fill", &PadConfig::fill, 0.0, -1e6, 1e6, "number", "constant mode's value, in the dtype's units");
  }
};

class Pad final : public ConfiguredTransform<PadConfig> {
 public:
  Pad()
      : ConfiguredTransform(
            Describe("pad", "geometry",
                     "pads the borders: constant, edge, reflect, symmetric or circular (torchvision)")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const PadConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("pad");
    const auto [left, top, right, bottom] = c.sides;
    return image::pad(x, top, bottom, left, right, c.mode, c.fill);
  }
};

}  // namespace

void register_pad(TransformRegistry& registry) { registry.add(std::make_unique<Pad>()); }

}  // namespace devparity
