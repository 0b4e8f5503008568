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
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

struct PadConfig {
  int64_t left = 0, top = 0, right = 0, bottom = 0;
  Border mode = Border::kConstant;
  double fill = 0.0;
  static PadConfig read(ObjectReader& r) {
    PadConfig c;
    const auto* v = r.get("padding");
    if (v == nullptr) throw FieldError(r.pointer("padding"), "required");
    const int64_t most = 1 << 14;
    if (v->is_number()) {
      c.left = c.top = c.right = c.bottom = r.integer("padding", std::nullopt, 0, most);
    } else {
      const auto p = r.integers("padding", 0, 0, most);
      if (p.size() == 1) {
        c.left = c.top = c.right = c.bottom = p[0];
      } else if (p.size() == 2) {
        c.left = c.right = p[0];
        c.top = c.bottom = p[1];
      } else if (p.size() == 4) {
        c.left = p[0], c.top = p[1], c.right = p[2], c.bottom = p[3];
      } else {
        throw FieldError(r.pointer("padding"), "expected 1, 2 or 4 integers");
      }
    }
    // torchvision spells replicate "edge".
    const auto name = r.string("padding_mode", "constant", {"constant", "edge", "reflect", "symmetric", "circular"});
    c.mode = name == "edge" ? Border::kReplicate
             : name == "reflect" ? Border::kReflect
             : name == "symmetric" ? Border::kSymmetric
             : name == "circular" ? Border::kCircular
                                  : Border::kConstant;
    c.fill = r.number("fill", 0.0, -1e6, 1e6);
    return c;
  }
  void check(c10::IntArrayRef) const {}
  void write(nlohmann::json& out) const {
    out["padding"] = {left, top, right, bottom};
    out["padding_mode"] = mode == Border::kReplicate ? "edge" : name_of(mode);
    out["fill"] = fill;
  }
};

class Pad final : public ConfiguredTransform<PadConfig> {
 public:
  Pad()
      : ConfiguredTransform(
            Describe("pad", "geometry",
                     "pads the borders: constant, edge, reflect, symmetric or circular (torchvision)")
                .param("padding", "p, [lr, tb] or [l, t, r, b] integers >= 0", "required", "pixels per side")
                .param("padding_mode", "constant|edge|reflect|symmetric|circular", "\"constant\"", "how the border is filled (torchvision's pad)")
                .param("fill", "number", "0", "constant mode's value, in the dtype's units")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const PadConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("pad");
    return image::pad(x, c.top, c.bottom, c.left, c.right, c.mode, c.fill);
  }
};

}  // namespace

void register_pad(TransformRegistry& registry) { registry.add(std::make_unique<Pad>()); }

}  // namespace devparity
