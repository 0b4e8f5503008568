// erasing: torchvision v2's RandomErasing / erase. A box of the image (the
// same for the whole batch) is set to a value per channel.
//
// Sampling (on the CPU, torchvision's calls in its order): the gate
// rand(1) < p; then up to 10 tries of area' = H W U(scale),
// aspect = exp(U(log ratio)) (float32), h = round(sqrt(area' aspect)),
// w = round(sqrt(area' / aspect)) until h < H and w < W; then
// i = randint(0, H - h + 1), j = randint(0, W - w + 1). Ten failures leave
// the image as is (torchvision's full-image box with value None).

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"
#include "harness/transforms/random/draws.h"
#include "harness/transforms/random/random_transform.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

namespace devparity {
namespace {

double uniform_draw(at::Generator& gen, double lo, double hi) {
  return at::empty({1}, at::kFloat).uniform_(lo, hi, gen).item<double>();
}

// The box torchvision's _get_params draws, or nullopt after ten misses.
std::optional<std::array<int64_t, 4>> draw_box(at::Generator& gen, int64_t h, int64_t w,
                                               std::pair<double, double> scale, std::pair<double, double> ratio) {
  const auto log_ratio = at::log(at::tensor({static_cast<float>(ratio.first), static_cast<float>(ratio.second)}));
  const double lo = log_ratio[0].item<double>(), hi = log_ratio[1].item<double>();
  const double area = static_cast<double>(h * w);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double erase_area = area * uniform_draw(gen, scale.first, scale.second);
    const double aspect = at::empty({1}, at::kFloat).uniform_(lo, hi, gen).exp().item<double>();
    const auto bh = static_cast<int64_t>(std::nearbyint(std::sqrt(erase_area * aspect)));
    const auto bw = static_cast<int64_t>(std::nearbyint(std::sqrt(erase_area / aspect)));
    if (!(bh < h && bw < w)) continue;
    const int64_t i = at::randint(0, h - bh + 1, {1}, gen).item<int64_t>();
    const int64_t j = at::randint(0, w - bw + 1, {1}, gen).item<int64_t>();
    return std::array<int64_t, 4>{i, j, bh, bw};
  }
  return std::nullopt;
}

// The box draw ranges, declared once.
const random_draws::DrawRange kScale{"scale", {0.02, 0.33}, 1e-9, 1.0, "box area as a fraction of the image",
                                     "[low, high] in (0, 1]"};
const random_draws::DrawRange kRatio{"ratio", {0.3, 3.3}, 1e-6, 1e6, "box aspect ratio range", "[low, high] > 0"};

const random_draws::PerSample kBox{"box", "[top, left, height, width]",
                                  "explicit box (may be empty); replaces the draws and the gate"};

const random_draws::PerChannel kValue{"value", "number or [per channel]", "0", -1e6, 1e6, "in the dtype's units"};

// The gate and the draw ranges, read and written as one.
struct ErasingDraws : DeclaredFields<ErasingDraws> {
  double p = 0.5;
  std::pair<double, double> scale, ratio;

  static void declare(Fields<ErasingDraws>& f) {
    f.number("p", &ErasingDraws::p, 0.5, 0.0, 1.0, "number in [0, 1]", "probability of erasing");
    f.declared(kScale, &ErasingDraws::scale).declared(kRatio, &ErasingDraws::ratio);
  }
};

class Erasing final : public RandomTransform<ErasingDraws> {
 public:
  Erasing()
      : RandomTransform(Describe("erasing", "geometry",
                                 "torchvision's RandomErasing: a random box set to a value (one box per batch)")
                            .params({kValue.doc(), kBox.doc()})
                            .dtypes(kImageDtypes)
                            .differentiable()) {}

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params) const override {
    DEVPARITY_TRACE_SCOPE("erasing");
    require_nchw(x.sizes(), info_.name);
    ObjectReader r(params);
    const auto value = read_value(r, x.size(1));
    auto out = x.clone();
    if (params.at(kBox.name).is_null()) return out;
    const auto box = read_box(r, x.sizes());
    auto region = out.narrow(2, box[0], box[2]).narrow(3, box[1], box[3]);
    region.copy_(image::per_channel(value, x.options()).expand_as(region));
    return out;
  }

 private:
  static std::vector<double> read_value(ObjectReader& r, int64_t channels) { return kValue.read_for(r, channels, 0.0); }

  static std::vector<int64_t> read_box(ObjectReader& r, c10::IntArrayRef shape) {
    const auto box = r.integers(kBox.name, 4, 0, int64_t{1} << 31);
    // An empty box erases nothing: torchvision draws h = 0 on tiny images.
    if (box[0] + box[2] > shape[2] || box[1] + box[3] > shape[3]) {
      throw FieldError(r.pointer(kBox.name), fmt::format("[{}, {}, {}, {}] is not a box inside {}x{}", box[0],
                                                     box[1], box[2], box[3], shape[2], shape[3]));
    }
    return box;
  }

  void draw(const ErasingDraws& draws, ObjectReader& r, c10::IntArrayRef shape, at::Generator& gen,
            nlohmann::json& out) const override {
    out["value"] = read_value(r, shape[1]);
    if (kBox.given(r)) {
      out[kBox.name] = read_box(r, shape);
    } else if (at::rand({1}, gen).item<double>() < draws.p) {
      const auto box = draw_box(gen, shape[2], shape[3], draws.scale, draws.ratio);
      out[kBox.name] = box ? nlohmann::json(*box) : nlohmann::json(nullptr);
    } else {
      out[kBox.name] = nullptr;
    }
  }
};

}  // namespace

void register_erasing(TransformRegistry& registry) { registry.add(std::make_unique<Erasing>()); }

}  // namespace devparity
