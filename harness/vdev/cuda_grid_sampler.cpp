// CUDA's grid_sampler_2d (Note [CUDA's grid sampler] in vdev/cuda_grid_sampler.h).
// Built with -ffp-contract=off: the fused steps are the std::fma calls and
// no others.
#include "harness/vdev/cuda_grid_sampler.h"

#include "harness/vdev/cuda_cubic.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <climits>
#include <cmath>

namespace devparity::vdev::cuda_grid {
namespace {

enum class Mode { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class Pad { kZeros = 0, kBorder = 1, kReflection = 2 };

template <typename T>
T unnormalize(T coord, int64_t size, bool align_corners) {
  if (align_corners) return ((coord + T(1)) / T(2)) * T(size - 1);
  return std::fma(coord + T(1), T(size), T(-1)) / T(2);
}

template <typename T>
T clip(T x, int64_t size) {
  return std::fmin(T(size - 1), std::fmax(x, T(0)));
}

template <typename T>
T reflect(T x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return T(0);
  const T low = T(twice_low) / T(2);
  const T span = T(twice_high - twice_low) / T(2);
  x = std::fabs(x - low);
  const T extra = std::fmod(x, span);
  const auto flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + low : (span - extra) + low;
}

// -100: outside every image, and no undefined cast to int.
template <typename T>
T safe_int_range(T x) {
  if (!std::isfinite(static_cast<double>(x)) || x > T(INT_MAX - 1) || x < T(INT_MIN)) return T(-100);
  return x;
}

template <typename T>
T padded(T x, int64_t size, Pad pad, bool align_corners) {
  if (pad == Pad::kBorder) {
    x = clip(x, size);
  } else if (pad == Pad::kReflection) {
    x = clip(align_corners ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1), size);
  }
  return safe_int_range(x);
}

template <typename T>
struct Sampler {
  const T* in;    // (N, C, H, W) contiguous
  const T* grid;  // (N, Ho, Wo, 2) contiguous
  T* out;         // (N, C, Ho, Wo)
  int64_t c, h, w, ho, wo;
  Mode mode;
  Pad pad;
  bool align;

  bool inside(int64_t y, int64_t x) const { return y >= 0 && y < h && x >= 0 && x < w; }
  const T* plane(int64_t n, int64_t ch) const { return in + (n * c + ch) * h * w; }
  T& at(int64_t n, int64_t ch, int64_t i) const { return out[(n * c + ch) * ho * wo + i]; }

  // A tap of the bicubic kernel: its position padded, 0 outside.
  T tap(const T* p, T x, T y) const {
    const auto ix = static_cast<int64_t>(padded(x, w, pad, align));
    const auto iy = static_cast<int64_t>(padded(y, h, pad, align));
    return inside(iy, ix) ? p[iy * w + ix] : T(0);
  }

  void pixel(int64_t n, int64_t i) const {
    const T gx = grid[(n * ho * wo + i) * 2], gy = grid[(n * ho * wo + i) * 2 + 1];
    if (mode == Mode::kBicubic) {
      const T x = unnormalize(gx, w, align), y = unnormalize(gy, h, align);
      const T x0 = std::floor(x), y0 = std::floor(y);
      const T tx = x - x0, ty = y - y0;
      for (int64_t ch = 0; ch < c; ++ch) {
        const T* p = plane(n, ch);
        T rows[4];
        for (int r = 0; r < 4; ++r) {
          const T yr = y0 - T(1) + T(r);
          rows[r] = cuda_cubic::interp(tap(p, x0 - T(1), yr), tap(p, x0, yr), tap(p, x0 + T(1), yr), tap(p, x0 + T(2), yr), tx);
        }
        at(n, ch, i) = cuda_cubic::interp(rows[0], rows[1], rows[2], rows[3], ty);
      }
      return;
    }
    const T x = padded(unnormalize(gx, w, align), w, pad, align);
    const T y = padded(unnormalize(gy, h, align), h, pad, align);
    if (mode == Mode::kNearest) {
      const auto ix = static_cast<int64_t>(std::nearbyint(x)), iy = static_cast<int64_t>(std::nearbyint(y));
      for (int64_t ch = 0; ch < c; ++ch) at(n, ch, i) = inside(iy, ix) ? plane(n, ch)[iy * w + ix] : T(0);
      return;
    }
    const auto x0 = static_cast<int64_t>(std::floor(x)), y0 = static_cast<int64_t>(std::floor(y));
    const T fx0 = T(x0), fy0 = T(y0), fx1 = T(x0 + 1), fy1 = T(y0 + 1);
    const T ax = fx1 - x, bx = x - fx0, ay = fy1 - y, by = y - fy0;
    const T weights[4] = {ax * ay, bx * ay, ax * by, bx * by};  // NW, NE, SW, SE
    const int64_t ys[4] = {y0, y0, y0 + 1, y0 + 1}, xs[4] = {x0, x0 + 1, x0, x0 + 1};
    for (int64_t ch = 0; ch < c; ++ch) {
      const T* p = plane(n, ch);
      T acc = T(0);
      for (int k = 0; k < 4; ++k) {
        if (inside(ys[k], xs[k])) acc = std::fma(p[ys[k] * w + xs[k]], weights[k], acc);
      }
      at(n, ch, i) = acc;
    }
  }
};

template <typename T>
at::Tensor sample(const at::Tensor& input, const at::Tensor& grid, Mode mode, Pad pad, bool align) {
  const auto in = input.contiguous(), g = grid.contiguous();
  const int64_t n = in.size(0), c = in.size(1), ho = g.size(1), wo = g.size(2);
  auto out = at::empty({n, c, ho, wo}, in.options());
  const Sampler<T> s{in.data_ptr<T>(), g.data_ptr<T>(), out.data_ptr<T>(), c, in.size(2), in.size(3), ho, wo,
                     mode, pad, align};
  at::parallel_for(0, n * ho * wo, 256, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) s.pixel(k / (ho * wo), k % (ho * wo));
  });
  return out;
}

// What the kernel takes; anything else is the CPU kernel's to refuse or run.
bool modelled(const at::Tensor& input, const at::Tensor& grid, int64_t mode, int64_t pad) {
  const auto t = input.scalar_type();
  const bool floating = t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16;
  return floating && grid.scalar_type() == t && input.dim() == 4 && grid.dim() == 4 && grid.size(3) == 2 &&
         input.size(0) == grid.size(0) && input.numel() > 0 && grid.numel() > 0 && mode >= 0 && mode <= 2 &&
         pad >= 0 && pad <= 2 && input.device().is_cpu() && grid.device().is_cpu();
}

}  // namespace

std::vector<at::Tensor> grid_sampler_2d(const c10::FunctionSchema& /*schema*/, const std::vector<c10::IValue>& args,
                                        const CpuKernel& cpu) {
  const auto& input = args[0].toTensor();
  const auto& grid = args[1].toTensor();
  const auto mode = args[2].toInt(), pad = args[3].toInt();
  if (!modelled(input, grid, mode, pad)) return cpu(args);
  const bool align = args[4].toBool();
  const auto m = static_cast<Mode>(mode);
  const auto p = static_cast<Pad>(pad);
  if (input.scalar_type() == at::kDouble) return {sample<double>(input, grid, m, p, align)};
  if (input.scalar_type() == at::kFloat) return {sample<float>(input, grid, m, p, align)};
  // half and bfloat16: CUDA computes in float and rounds the result.
  return {sample<float>(input.to(at::kFloat), grid.to(at::kFloat), m, p, align).to(input.scalar_type())};
}

const std::vector<std::string>& ops() {
  static const std::vector<std::string> names = {"aten::grid_sampler_2d", "aten::grid_sampler_2d.out"};
  return names;
}

}  // namespace devparity::vdev::cuda_grid
