#include "harness/transforms/kernels/grid_sampler.h"

#include "harness/base/rounding.h"
#include "harness/transforms/kernels/image_math.h"

#include <ATen/ATen.h>

#include <vector>

namespace devparity::sampler {
namespace {

// Reflects coordinates about -0.5 and size - 0.5 (grid_sample's reflection
// with align_corners = false), then clamps, as PyTorch does.
at::Tensor reflect(const at::Tensor& c, int64_t size) {
  const double span = static_cast<double>(size);
  const auto shifted = c.add(0.5);
  const auto folded = shifted.remainder(2.0 * span);  // [0, 2 size)
  const auto mirrored = image::choose(folded.ge(span), folded.neg().add(2.0 * span), folded);
  return mirrored.sub(0.5).clamp(0.0, span - 1.0);
}

at::Tensor padded(const at::Tensor& c, int64_t size, Padding padding) {
  if (padding == Padding::kBorder) return c.clamp(0.0, static_cast<double>(size - 1));
  if (padding == Padding::kReflection) return reflect(c, size);
  return c;
}

// Where nearest sampling at (sx, sy) picks at a midpoint of either axis
// (Note [Sampling ties]), as (N or 1, 1, Ho, Wo) bool.
at::Tensor midpoint_ties(const at::Tensor& sx, const at::Tensor& sy, int64_t h, int64_t w, Padding padding) {
  auto at_midpoint = [](const at::Tensor& c) {
    const auto f = c - c.floor();
    return f.ge(0.5 - kSamplingTieEpsilon).bitwise_and(f.le(0.5 + kSamplingTieEpsilon));
  };
  return at_midpoint(padded(sx, w, padding)).bitwise_or(at_midpoint(padded(sy, h, padding))).unsqueeze(1);
}

// Keys' cubic convolution weights for the taps at -1, 0, 1, 2 around t.
std::vector<at::Tensor> cubic_weights(const at::Tensor& t) {
  const double a = -0.75;
  auto near = [&](const at::Tensor& d) { return ((d * (a + 2.0) - (a + 3.0)) * d) * d + 1.0; };
  auto far = [&](const at::Tensor& d) { return ((d * a - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a; };
  return {far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)};
}

struct Reader {
  at::Tensor flat;  // (N, C, H * W)
  int64_t n, c, h, w, ho, wo;
  Padding padding;

  // x's values at integer positions (iy, ix) of shape (N or 1, Ho, Wo),
  // zeros outside for zeros padding, as (N, C, Ho, Wo).
  at::Tensor at_positions(const at::Tensor& iy, const at::Tensor& ix) const {
    auto y = iy, x = ix;
    at::Tensor inside;
    if (padding == Padding::kZeros) {
      inside = iy.ge(0).bitwise_and(iy.le(h - 1)).bitwise_and(ix.ge(0)).bitwise_and(ix.le(w - 1));
    }
    // Border and reflection coordinates are inside already, up to the
    // neighbours of the last pixel, which clamping reads as that pixel.
    y = y.clamp(0, h - 1);
    x = x.clamp(0, w - 1);
    const auto index = (y * w + x).reshape({-1, 1, ho * wo}).expand({n, c, ho * wo});
    auto values = flat.gather(2, index).reshape({n, c, ho, wo});
    if (inside.defined()) values = values.mul(inside.unsqueeze(1).to(values.scalar_type()));
    return values;
  }
};

}  // namespace

c10::ScalarType compute_dtype(const at::Tensor& image) {
  return image.is_floating_point() ? image.scalar_type() : at::kFloat;
}

at::Tensor sample(const at::Tensor& x, const at::Tensor& sx_in, const at::Tensor& sy_in,
                  Interpolation interpolation, Padding padding) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t ho = sx_in.size(1), wo = sx_in.size(2);
  const Reader reader{x.reshape({n, c, h * w}), n, c, h, w, ho, wo, padding};
  const auto longs = [](const at::Tensor& t) { return t.to(at::kLong); };
  // Bicubic pads each tap's position, not the coordinate (as grid_sample).
  const bool cubic = interpolation == Interpolation::kBicubic;
  const auto sx = cubic ? sx_in : padded(sx_in, w, padding);
  const auto sy = cubic ? sy_in : padded(sy_in, h, padding);
  if (interpolation == Interpolation::kNearest) return reader.at_positions(longs(sy.round()), longs(sx.round()));
  const auto x0 = sx.floor(), y0 = sy.floor();
  const auto tx = (sx - x0).unsqueeze(1), ty = (sy - y0).unsqueeze(1);
  const auto ix = longs(x0), iy = longs(y0);
  if (interpolation == Interpolation::kBilinear) {
    const auto top = reader.at_positions(iy, ix) * (1.0 - tx) + reader.at_positions(iy, ix + 1) * tx;
    const auto bottom = reader.at_positions(iy + 1, ix) * (1.0 - tx) + reader.at_positions(iy + 1, ix + 1) * tx;
    return top * (1.0 - ty) + bottom * ty;
  }
  // bicubic: rows of four taps, then the four rows. Border and reflection
  // clamp each tap's position, as grid_sample's bicubic does.
  const auto wx = cubic_weights(tx), wy = cubic_weights(ty);
  auto tap_positions = [&](const at::Tensor& i, int64_t k, int64_t size) {
    auto p = i + (k - 1);
    if (padding == Padding::kReflection) return longs(reflect(p.to(sx.scalar_type()), size));
    if (padding == Padding::kBorder) return p.clamp(0, size - 1);
    return p;
  };
  at::Tensor out;
  for (int64_t r = 0; r < 4; ++r) {
    const auto py = tap_positions(iy, r, h);
    at::Tensor row;
    for (int64_t k = 0; k < 4; ++k) {
      const auto term = reader.at_positions(py, tap_positions(ix, k, w)) * wx[static_cast<size_t>(k)];
      row = row.defined() ? row + term : term;
    }
    const auto weighted = row * wy[static_cast<size_t>(r)];
    out = out.defined() ? out + weighted : weighted;
  }
  return out;
}

at::Tensor warp(const at::Tensor& image, const at::Tensor& sx, const at::Tensor& sy,
                Interpolation interpolation, Padding padding, const std::vector<double>& fill) {
  const bool fp = image.is_floating_point();
  auto x = fp ? image : image.to(at::kFloat);
  const bool blend_fill = !fill.empty() && padding == Padding::kZeros;
  if (blend_fill) x = at::cat({x, at::ones({x.size(0), 1, x.size(2), x.size(3)}, x.options())}, 1);
  auto out = sample(x, sx, sy, interpolation, padding);
  if (blend_fill) {
    const int64_t c = image.size(1);
    const auto mask = out.narrow(1, c, 1);
    out = out.narrow(1, 0, c);
    auto values = fill;
    if (values.size() == 1) values.resize(static_cast<size_t>(c), values[0]);
    const auto fill_image = image::per_channel(values, out.options());
    if (interpolation == Interpolation::kNearest) {
      const auto outside = mask.lt(0.5);
      out = image::choose(outside.expand_as(out), fill_image.expand_as(out), out);
    } else {
      out = out.sub(fill_image).mul(mask).add(fill_image);
    }
  }
  at::Tensor ties;
  if (interpolation == Interpolation::kNearest && unrounded_wanted()) {
    ties = midpoint_ties(sx, sy, image.size(2), image.size(3), padding);
  }
  if (!fp) {
    out = note_unrounded(out.round().clamp(0.0, 255.0).to(image.scalar_type()), out, Rounding::kHalfEven);
  }
  return ties.defined() ? note_ambiguous(out, ties) : out;
}

}  // namespace devparity::sampler
