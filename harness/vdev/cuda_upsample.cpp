// CUDA's bilinear and bicubic interpolate (vdev/cuda_upsample.h). Built
// with -ffp-contract=off: the fused steps are the std::fma calls and no others.
#include "harness/vdev/cuda_upsample.h"

#include "harness/vdev/cuda_cubic.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace devparity::vdev::cuda_upsample {
namespace {

struct Call {
  at::Tensor x;
  int64_t out_h = 0, out_w = 0;
  bool align_corners = false;
  std::optional<double> scale_h, scale_w;  // the op's scale factors, if given
  bool cubic = false, antialias = false;
};

std::optional<double> optional_double(const c10::IValue& v) {
  return v.isNone() ? std::nullopt : std::optional<double>(v.toDouble());
}

// The call's operands, by the schema's names (the plain, .vec and .out forms).
std::optional<Call> read(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args) {
  Call c;
  c.x = args[0].toTensor();
  if (c.x.dim() != 4) return std::nullopt;
  c.cubic = schema.name().find("bicubic") != std::string::npos;
  c.antialias = schema.name().find("_aa") != std::string::npos;
  const auto at = [&](const char* name) { return argument(schema, args, name); };
  c.align_corners = at("align_corners")->toBool();
  const auto* size = at("output_size");
  if (const auto* factors = at("scale_factors")) {  // .vec
    std::optional<std::vector<double>> f;
    if (!factors->isNone()) f = factors->toDoubleVector();
    if ((f && f->size() != 2) || (f && !size->isNone())) return std::nullopt;  // the CPU's kernel refuses it
    if (!size->isNone()) {
      const auto s = size->toIntVector();
      if (s.size() != 2) return std::nullopt;
      c.out_h = s[0], c.out_w = s[1];
    } else if (f) {
      c.out_h = static_cast<int64_t>(static_cast<double>(c.x.size(2)) * (*f)[0]);
      c.out_w = static_cast<int64_t>(static_cast<double>(c.x.size(3)) * (*f)[1]);
    } else {
      return std::nullopt;
    }
    if (f) c.scale_h = (*f)[0], c.scale_w = (*f)[1];
  } else {
    const auto s = size->toIntVector();
    if (s.size() != 2) return std::nullopt;
    c.out_h = s[0], c.out_w = s[1];
    c.scale_h = optional_double(*at("scales_h"));
    c.scale_w = optional_double(*at("scales_w"));
  }
  return c;
}

// area_pixel_compute_scale in the compute dtype.
template <typename T>
T axis_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? T(in - 1) / T(out - 1) : T(0);
  if (scale && *scale > 0.0) return static_cast<T>(1.0 / *scale);
  return T(in) / T(out);
}

// area_pixel_compute_source_index, fused.
template <typename T>
T source(T scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * T(dst);
  const T src = std::fma(scale, T(dst) + T(0.5), T(-0.5));
  return !cubic && src < T(0) ? T(0) : src;
}

// One image plane's reader and writer.
template <typename T>
struct Planes {
  const T* in;
  T* out;
  int64_t h, w, oh, ow;
  const T* plane(int64_t p) const { return in + p * h * w; }
  T& at(int64_t p, int64_t y, int64_t x) const { return out[(p * oh + y) * ow + x]; }
};

template <typename T>
void bilinear(const Planes<T>& io, int64_t planes, T scale_h, T scale_w, bool align) {
  at::parallel_for(0, planes * io.oh, 16, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t p = k / io.oh, y = k % io.oh;
      const T hr = source(scale_h, y, align, false);
      const auto h1 = static_cast<int64_t>(hr);
      const int64_t h1p = h1 < io.h - 1 ? 1 : 0;
      const T h1l = hr - T(h1), h0l = T(1) - h1l;
      const T* top = io.plane(p) + h1 * io.w;
      const T* bottom = top + h1p * io.w;
      for (int64_t x = 0; x < io.ow; ++x) {
        const T wr = source(scale_w, x, align, false);
        const auto w1 = static_cast<int64_t>(wr);
        const int64_t w1p = w1 < io.w - 1 ? 1 : 0;
        const T w1l = wr - T(w1), w0l = T(1) - w1l;
        const T upper = std::fma(w0l, top[w1], w1l * top[w1 + w1p]);
        const T lower = std::fma(w0l, bottom[w1], w1l * bottom[w1 + w1p]);
        io.at(p, y, x) = std::fma(h0l, upper, h1l * lower);
      }
    }
  });
}

template <typename T>
void bicubic(const Planes<T>& io, int64_t planes, T scale_h, T scale_w, bool align) {
  at::parallel_for(0, planes * io.oh, 16, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t p = k / io.oh, y = k % io.oh;
      const T* src = io.plane(p);
      if (io.h == io.oh && io.w == io.ow) {  // the kernel's copy
        std::copy(src + y * io.w, src + (y + 1) * io.w, &io.at(p, y, 0));
        continue;
      }
      const T ry = source(scale_h, y, align, true);
      const T fy = std::floor(ry);
      const T ty = ry - fy;
      const auto iy = static_cast<int64_t>(fy);
      const auto value = [&](int64_t yy, int64_t xx) {
        return src[std::clamp<int64_t>(yy, 0, io.h - 1) * io.w + std::clamp<int64_t>(xx, 0, io.w - 1)];
      };
      for (int64_t x = 0; x < io.ow; ++x) {
        const T rx = source(scale_w, x, align, true);
        const T fx = std::floor(rx);
        const T tx = rx - fx;
        const auto ix = static_cast<int64_t>(fx);
        T rows[4];
        for (int64_t r = 0; r < 4; ++r) {
          const int64_t yy = iy - 1 + r;
          rows[r] = cuda_cubic::interp(value(yy, ix - 1), value(yy, ix), value(yy, ix + 1), value(yy, ix + 2), tx);
        }
        io.at(p, y, x) = cuda_cubic::interp(rows[0], rows[1], rows[2], rows[3], ty);
      }
    }
  });
}

// One axis of the antialiased kernels: each output's span and normalised weights.
template <typename T>
struct Span {
  std::vector<int64_t> first, count;
  std::vector<T> weights;  // `taps` per output
  int64_t taps = 0;
};

template <typename T>
T triangle(T ax) {
  return ax < T(1) ? T(1) - ax : T(0);
}

// Pillow's bicubic filter (a = -0.5) as compiled.
template <typename T>
T pillow_cubic(T ax) {
  if (ax < T(1)) return std::fma(std::fma(T(1.5), ax, T(-2.5)) * ax, ax, T(1));
  if (ax < T(2)) return std::fma(std::fma(ax - T(5), ax, T(8)), ax, T(-4)) * T(-0.5);
  return T(0);
}

template <typename T>
Span<T> span(int64_t in, int64_t out, T scale, bool cubic) {
  const T half = cubic ? T(2) : T(1);
  const T support = scale >= T(1) ? half * scale : half;
  Span<T> s;
  s.taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  s.first.resize(static_cast<size_t>(out));
  s.count.resize(static_cast<size_t>(out));
  s.weights.assign(static_cast<size_t>(out * s.taps), T(0));
  const T invscale = scale >= T(1) ? static_cast<T>(1.0 / static_cast<double>(scale)) : T(1);
  for (int64_t o = 0; o < out; ++o) {
    const T centre = T(o) + T(0.5);
    const T lo = std::max(std::trunc(std::fma(scale, centre, -support) + T(0.5)), T(0));
    const T hi = std::min(std::trunc(std::fma(scale, centre, support) + T(0.5)), T(in));
    const T lo_minus_centre = std::fma(-scale, centre, lo);
    const auto count = std::clamp<int64_t>(static_cast<int64_t>(hi - lo), 0, s.taps);
    T* w = &s.weights[static_cast<size_t>(o * s.taps)];
    T total = T(0);
    for (int64_t j = 0; j < count; ++j) {
      const T arg = ((T(j) + lo_minus_centre) + T(0.5)) * invscale;
      w[j] = cubic ? pillow_cubic(std::fabs(arg)) : triangle(std::fabs(arg));
      total += w[j];
    }
    if (total != T(0)) {
      for (int64_t j = 0; j < count; ++j) w[j] /= total;
    }
    s.first[static_cast<size_t>(o)] = static_cast<int64_t>(lo);
    s.count[static_cast<size_t>(o)] = count;
  }
  return s;
}

// x0 w0, then fma(x_j, w_j, sum): interpolate_aa_single_dim.
template <typename T, typename Read>
T weighted(const Read& x, const T* w, int64_t count) {
  if (count == 0) return T(0);
  T sum = x(0) * w[0];
  for (int64_t j = 1; j < count; ++j) sum = std::fma(x(j), w[j], sum);
  return sum;
}

template <typename T>
void antialiased(const Planes<T>& io, int64_t planes, T scale_h, T scale_w, bool cubic) {
  const auto sy = span<T>(io.h, io.oh, scale_h, cubic);
  const auto sx = span<T>(io.w, io.ow, scale_w, cubic);
  at::parallel_for(0, planes * io.oh, 16, [&](int64_t begin, int64_t end) {
    std::vector<T> rows(static_cast<size_t>(sy.taps));
    for (int64_t k = begin; k < end; ++k) {
      const int64_t p = k / io.oh, y = k % io.oh;
      const auto y0 = sy.first[static_cast<size_t>(y)], ny = sy.count[static_cast<size_t>(y)];
      const T* wy = &sy.weights[static_cast<size_t>(y * sy.taps)];
      for (int64_t x = 0; x < io.ow; ++x) {
        const auto x0 = sx.first[static_cast<size_t>(x)], nx = sx.count[static_cast<size_t>(x)];
        const T* wx = &sx.weights[static_cast<size_t>(x * sx.taps)];
        for (int64_t r = 0; r < ny; ++r) {
          const T* row = io.plane(p) + (y0 + r) * io.w + x0;
          rows[static_cast<size_t>(r)] = weighted([&](int64_t j) { return row[j]; }, wx, nx);
        }
        io.at(p, y, x) = weighted([&](int64_t j) { return rows[static_cast<size_t>(j)]; }, wy, ny);
      }
    }
  });
}

template <typename T>
at::Tensor run(const Call& c, const at::Tensor& x) {
  const auto in = x.contiguous();
  const int64_t planes = in.size(0) * in.size(1), h = in.size(2), w = in.size(3);
  auto out = at::empty({in.size(0), in.size(1), c.out_h, c.out_w}, in.options());
  if (out.numel() == 0) return out;
  const Planes<T> io{in.data_ptr<T>(), out.data_ptr<T>(), h, w, c.out_h, c.out_w};
  const T scale_h = axis_scale<T>(h, c.out_h, c.align_corners, c.scale_h);
  const T scale_w = axis_scale<T>(w, c.out_w, c.align_corners, c.scale_w);
  if (c.antialias) {
    antialiased(io, planes, scale_h, scale_w, c.cubic);
  } else if (c.cubic) {
    bicubic(io, planes, scale_h, scale_w, c.align_corners);
  } else {
    bilinear(io, planes, scale_h, scale_w, c.align_corners);
  }
  return out;
}

}  // namespace

std::vector<at::Tensor> interpolate(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                    const CpuKernel& cpu) {
  const auto call = read(schema, args);
  if (!call || call->out_h <= 0 || call->out_w <= 0 || call->x.numel() == 0 || !call->x.device().is_cpu() ||
      (call->antialias && call->align_corners)) {
    return cpu(args);  // the CPU's kernel says what is wrong, or computes what is not modelled
  }
  const auto& x = call->x;
  const auto t = x.scalar_type();
  at::Tensor out;
  if (t == at::kFloat) {
    out = run<float>(*call, x);
  } else if (t == at::kDouble) {
    out = run<double>(*call, x);
  } else if ((t == at::kHalf || t == at::kBFloat16) && !call->antialias) {
    out = run<float>(*call, x.to(at::kFloat)).to(t);
  } else {
    return cpu(args);
  }
  return {out.contiguous(x.suggest_memory_format())};
}

const std::vector<std::string>& ops() {
  static const std::vector<std::string> names = {
      "aten::upsample_bilinear2d",         "aten::upsample_bilinear2d.vec",     "aten::upsample_bilinear2d.out",
      "aten::upsample_bicubic2d",          "aten::upsample_bicubic2d.vec",      "aten::upsample_bicubic2d.out",
      "aten::_upsample_bilinear2d_aa",     "aten::_upsample_bilinear2d_aa.vec", "aten::_upsample_bilinear2d_aa.out",
      "aten::_upsample_bicubic2d_aa",      "aten::_upsample_bicubic2d_aa.vec",  "aten::_upsample_bicubic2d_aa.out"};
  return names;
}

}  // namespace devparity::vdev::cuda_upsample
