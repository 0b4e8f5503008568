#include "harness/transforms/geometry/warp_options.h"

#include "harness/base/error.h"
#include "harness/transforms/kernels/grid_sampler.h"
#include "harness/transforms/random/draws.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

const random_draws::PerChannel kFill{"fill", "number, [per channel] or null", "null", -1e6, 1e6,
                                     "colour of the area from outside the image (zeros padding; in the dtype's units)"};

}  // namespace

WarpOptions WarpOptions::read(ObjectReader& r, Interpolation default_interpolation) {
  WarpOptions o;
  o.interpolation = read_mode(r, "interpolation", default_interpolation,
                              {Interpolation::kNearest, Interpolation::kBilinear, Interpolation::kBicubic});
  o.padding = read_mode(r, "padding_mode", Padding::kZeros, {Padding::kZeros, Padding::kBorder, Padding::kReflection});
  if (auto fill = kFill.read(r)) o.fill = std::move(*fill);
  return o;
}

void WarpOptions::check(c10::IntArrayRef shape) const {
  if (fill.size() > 1 && static_cast<int64_t>(fill.size()) != shape[1]) {
    throw FieldError("/fill", fmt::format("{} values for {} channels", fill.size(), shape[1]));
  }
}

void WarpOptions::write(nlohmann::json& out) const {
  out["interpolation"] = name_of(interpolation);
  out["padding_mode"] = name_of(padding);
  out["fill"] = fill.empty() ? nlohmann::json(nullptr) : nlohmann::json(fill);
}

std::vector<ParamDoc> WarpOptions::docs(Interpolation default_interpolation) {
  return {{"interpolation", "nearest|bilinear|bicubic", fmt::format("\"{}\"", name_of(default_interpolation)),
           "grid_sample's sampling mode"},
          {"padding_mode", "zeros|border|reflection", "\"zeros\"", "grid_sample's padding"},
          kFill.doc()};
}

std::pair<at::Tensor, at::Tensor> warp_positions(const at::Tensor& like, c10::ScalarType dtype, int64_t h, int64_t w,
                                                 double offset_x, double offset_y) {
  const auto options = like.options().dtype(dtype);
  return {at::arange(w, options).add(offset_x).reshape({1, 1, w}), at::arange(h, options).add(offset_y).reshape({1, h, 1})};
}

at::Tensor warp_with(const at::Tensor& x, const at::Tensor& sx, const at::Tensor& sy, const WarpOptions& o) {
  return sampler::warp(x, sx, sy, o.interpolation, o.padding, o.fill);
}

}  // namespace devparity
