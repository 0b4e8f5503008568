// crop and center_crop with torchvision v2's semantics
// (transforms/v2/functional/_geometry.py):
//
//   crop(top, left, height, width): rows top..top+height-1, columns
//     left..left+width-1; the parts of that box outside the image are zeros.
//   center_crop(height, width): top = round((H - height) / 2), left =
//     round((W - width) / 2), with Python's round (half to even); a crop
//     larger than the image pads it first with zeros, (d // 2) before and
//     ((d + 1) // 2) after.
//   resized_crop(top, left, height, width, size, ...): crop, then resize
//     with resize's parameters (LibTorch interpolate semantics; uint8 in
//     fixed point).
//
// Only narrow and a zero-filled canvas made on the input's device: exact in
// every dtype, and meta runs it.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/resize_and_blur.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace devparity {
namespace {

// The box [top, top + height) x [left, left + width) of x, zeros outside it;
// a view of x when the box lies inside (callers that return it copy it).
at::Tensor crop_box(const at::Tensor& x, int64_t top, int64_t left, int64_t height, int64_t width) {
  const int64_t h = x.size(2), w = x.size(3);
  const int64_t y0 = std::max<int64_t>(top, 0), y1 = std::min(top + height, h);
  const int64_t x0 = std::max<int64_t>(left, 0), x1 = std::min(left + width, w);
  if (y0 == top && x0 == left && y1 == top + height && x1 == left + width) {
    return x.narrow(2, top, height).narrow(3, left, width);
  }
  if (y1 <= y0 || x1 <= x0) {
    // Nothing of the image in the box: zeros that still hang on x (with a
    // zero gradient), as torchvision's pad-then-crop output does; a fresh
    // at::zeros would cut the autograd graph. masked_fill, not mul(0): a NaN
    // in x must not leak in.
    const auto corner = x.narrow(2, 0, 1).narrow(3, 0, 1);
    return corner.masked_fill(at::ones({}, x.options().dtype(at::kBool)), 0)
        .expand({x.size(0), x.size(1), height, width})
        .contiguous();
  }
  auto out = at::zeros({x.size(0), x.size(1), height, width}, x.options());
  out.narrow(2, y0 - top, y1 - y0).narrow(3, x0 - left, x1 - x0).copy_(x.narrow(2, y0, y1 - y0).narrow(3, x0, x1 - x0));
  return out;
}

// The box a crop takes.
struct CropBox {
  int64_t top = 0, left = 0, height = 1, width = 1;
};

// The box's four fields; `of` names what height and width count ("rows" or
// "rows of the box").
template <typename Config>
void add_box(Fields<Config>& f, CropBox Config::*box, const std::string& of) {
  auto side = [&](const char* name, int64_t CropBox::*member, std::optional<int64_t> fallback, int64_t lo,
                  const char* type, std::string meaning) {
    f.field({name, type, fallback ? std::to_string(*fallback) : "required", std::move(meaning)},
            [=](ObjectReader& r, Config& c) { (c.*box).*member = r.integer(name, fallback, lo, 1 << 16); },
            [=](const Config& c, nlohmann::json& out) { out[name] = (c.*box).*member; });
  };
  side("top", &CropBox::top, 0, -(1 << 16), "integer", "first row (may be negative)");
  side("left", &CropBox::left, 0, -(1 << 16), "integer", "first column (may be negative)");
  side("height", &CropBox::height, std::nullopt, 1, "integer >= 1", "rows" + of);
  side("width", &CropBox::width, std::nullopt, 1, "integer >= 1", "columns" + of);
}

struct CropConfig : DeclaredFields<CropConfig> {
  CropBox box;
  static void declare(Fields<CropConfig>& f) {
    add_box(f, &CropConfig::box, "");
  }
};

class Crop final : public ConfiguredTransform<CropConfig> {
 public:
  Crop()
      : ConfiguredTransform(Describe("crop", "geometry", "a box of the image; zeros where the box leaves it")
                                .dtypes(kImageDtypes)
                                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const CropConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("crop");
    return crop_box(x, c.box.top, c.box.left, c.box.height, c.box.width).contiguous();
  }
};

struct CenterCropConfig : DeclaredFields<CenterCropConfig> {
  int64_t height = 1, width = 1;
  static void declare(Fields<CenterCropConfig>& f) {
    f.integer_pair("size", &CenterCropConfig::height, &CenterCropConfig::width, 1, 1 << 16,
                   "[height, width] integers >= 1", "output size");
  }
};

// Python's round(): half to even.
int64_t round_half_even(double v) { return static_cast<int64_t>(std::nearbyint(v)); }

class CenterCrop final : public ConfiguredTransform<CenterCropConfig> {
 public:
  CenterCrop()
      : ConfiguredTransform(
            Describe(
                "center_crop", "geometry",
                "the centred box of the given size (torchvision's anchor rounding; zero padding when larger)")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const CenterCropConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("center_crop");
    const int64_t h = x.size(2), w = x.size(3);
    // Larger than the image: torchvision pads first ((d // 2) before), then
    // takes the centre of the padded image, whose anchor is then 0.
    const int64_t pad_top = c.height > h ? (c.height - h) / 2 : 0;
    const int64_t pad_left = c.width > w ? (c.width - w) / 2 : 0;
    const int64_t ph = std::max(h, c.height), pw = std::max(w, c.width);
    const int64_t top = round_half_even(static_cast<double>(ph - c.height) / 2.0) - pad_top;
    const int64_t left = round_half_even(static_cast<double>(pw - c.width) / 2.0) - pad_left;
    return crop_box(x, top, left, c.height, c.width).contiguous();
  }
};

struct ResizedCropConfig : DeclaredFields<ResizedCropConfig> {
  CropBox box;
  ResizeConfig resize;
  Uint8Strategy uint8;
  static void declare(Fields<ResizedCropConfig>& f) {
    add_box(f, &ResizedCropConfig::box, " of the box");
    f.part(&ResizedCropConfig::resize).part(&ResizedCropConfig::uint8);
  }
  void check(c10::IntArrayRef shape) const { resize.check(shape); }
};

class ResizedCrop final : public ConfiguredTransform<ResizedCropConfig> {
 public:
  ResizedCrop()
      : ConfiguredTransform(
            Describe("resized_crop", "geometry",
                     "crop then resize (torchvision's resized_crop; resize's interpolation semantics)")
                .dtypes(kImageDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const ResizedCropConfig& c) const override {
    DEVPARITY_TRACE_SCOPE("resized_crop");
    // Resampling reads a contiguous box faster than it copies it.
    return resize_image(crop_box(x, c.box.top, c.box.left, c.box.height, c.box.width).contiguous(), c.resize,
                        c.uint8.path);
  }
};

}  // namespace

void register_crop(TransformRegistry& registry) {
  registry.add(std::make_unique<Crop>());
  registry.add(std::make_unique<CenterCrop>());
  registry.add(std::make_unique<ResizedCrop>());
}

}  // namespace devparity
