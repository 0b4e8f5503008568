// torchvision's resizes and warps on vdev give the real GPU's outputs bit
// for bit (cuda_interpolate, Note [CUDA's grid sampler], Note [CUDA's SGEMM
// order]). Each resize, resized_crop, affine, rotate and perspective vector
// of ../shared/cuda-goldens (torchvision 0.26 on an H200) is replayed op for
// op as torchvision v2 issues it on CUDA (resize_image: uint8 through
// float32, interpolate, clamp for bicubic, round; affine_image, rotate_image,
// perspective_image: the matrix on the host in float64, the grid by linspace
// and bmm, grid_sample, the fill blend, the rounding) with every tensor op on
// vdev:1; the twins run the same programs with CUDA's arithmetic off and on
// the CPU, which must not match.
//
// Where the exact perspective coefficient is 0, the host's float64 lstsq
// (LAPACK) leaves 0 or a residue of about 1e-16 whose sign no CUDA model
// decides: the GPU's host (MKL) and these (OpenBLAS, two versions) differ
// there, and the grid's rounding at a tie follows the sign. Such a vector
// must match with that coefficient 0 or a residue of either sign, and is
// counted apart.

#include "harness/builtins.h"
#include "harness/base/npy.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/vdev.h"
#include "tests/support/cuda_goldens.h"
#include "tests/support/vdev_mode.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>

namespace devparity {
namespace {

using nlohmann::json;
namespace ca = vdev::cuda_arithmetic;

constexpr double kDegree = 3.14159265358979323846 / 180.0;  // Python's math.radians

at::TensorOptions f32(const c10::Device& d) { return at::TensorOptions().dtype(at::kFloat).device(d); }

// A Python list of floats as torch.tensor(list, dtype=float32) makes it.
at::Tensor floats(const std::vector<double>& v, const c10::Device& d) {
  return at::tensor(v, at::TensorOptions().dtype(at::kDouble)).to(at::kFloat).to(d);
}

// _get_inverse_affine_matrix (inverted), in Python's float64 order.
std::vector<double> inverse_affine(double cx, double cy, double angle, double tx, double ty, double scale,
                                   double shear_x, double shear_y) {
  const double rot = angle * kDegree, sx = shear_x * kDegree, sy = shear_y * kDegree;
  const double cos_sy = std::cos(sy), tan_sx = std::tan(sx), rot_minus_sy = rot - sy;
  const double cx_plus_tx = cx + tx, cy_plus_ty = cy + ty;
  const double a = std::cos(rot_minus_sy) / cos_sy;
  const double b = -(a * tan_sx + std::sin(rot));
  const double c = std::sin(rot_minus_sy) / cos_sy;
  const double d = std::cos(rot) - c * tan_sx;
  std::vector<double> m = {d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0};
  m[2] += cx - m[0] * cx_plus_tx - m[1] * cy_plus_ty;
  m[5] += cy - m[3] * cx_plus_tx - m[4] * cy_plus_ty;
  return m;
}

// _compute_affine_output_size_tensor: on the CPU, as torchvision computes it.
std::pair<int64_t, int64_t> affine_output_size(const std::vector<double>& matrix, int64_t w, int64_t h) {
  const double hw = 0.5 * w, hh = 0.5 * h;
  const auto pts = floats({-hw, -hh, 1.0, -hw, hh, 1.0, hw, hh, 1.0, hw, -hh, 1.0}, at::kCPU).view({4, 3});
  const auto theta = floats(matrix, at::kCPU).view({2, 3});
  const auto new_pts = at::matmul(pts, theta.t());
  auto [lo, hi] = at::aminmax(new_pts, 0);
  const auto halfs = floats({hw, hh}, at::kCPU);
  lo.add_(halfs);
  hi.add_(halfs);
  const auto cmax = hi.mul_(1.0 / 1e-4).trunc_().mul_(1e-4).ceil_();
  const auto cmin = lo.mul_(1.0 / 1e-4).trunc_().mul_(1e-4).floor_();
  const auto size = cmax.sub_(cmin);
  return {static_cast<int64_t>(size[0].item<float>()), static_cast<int64_t>(size[1].item<float>())};
}

// The base grid of _affine_grid (offset -(n - 1) / 2) or _perspective_grid (offset 0.5), on `d`.
at::Tensor base_grid(int64_t oh, int64_t ow, bool centred, const c10::Device& d) {
  auto base = at::empty({1, oh, ow, 3}, f32(d));
  const double x0 = centred ? (1.0 - ow) * 0.5 : 0.5, x1 = centred ? (ow - 1.0) * 0.5 : ow + 0.5 - 1.0;
  const double y0 = centred ? (1.0 - oh) * 0.5 : 0.5, y1 = centred ? (oh - 1.0) * 0.5 : oh + 0.5 - 1.0;
  base.select(3, 0).copy_(at::linspace(x0, x1, ow, f32(d)));
  base.select(3, 1).copy_(at::linspace(y0, y1, oh, f32(d)).unsqueeze(-1));
  base.select(3, 2).fill_(1);
  return base.view({1, oh * ow, 3});
}

at::Tensor affine_grid(const std::vector<double>& matrix, int64_t w, int64_t h, int64_t ow, int64_t oh,
                       const c10::Device& d) {
  const auto theta = floats(matrix, d).reshape({1, 2, 3});
  const auto rescaled = theta.transpose(1, 2).div_(floats({0.5 * w, 0.5 * h}, d));
  return base_grid(oh, ow, true, d).bmm(rescaled).view({1, oh, ow, 2});
}

at::Tensor perspective_grid(const std::vector<double>& k, int64_t ow, int64_t oh, const c10::Device& d) {
  const auto theta1 = floats({k[0], k[1], k[2], k[3], k[4], k[5]}, d).view({1, 2, 3});
  const auto theta2 = floats({k[6], k[7], 1.0, k[6], k[7], 1.0}, d).view({1, 2, 3});
  const auto rescaled = theta1.transpose(1, 2).div_(floats({0.5 * ow, 0.5 * oh}, d));
  const auto base = base_grid(oh, ow, false, d);
  const auto g1 = base.bmm(rescaled), g2 = base.bmm(theta2.transpose(1, 2));
  return g1.div_(g2).sub_(1.0).view({1, oh, ow, 2});
}

// _apply_grid_transform.
at::Tensor apply_grid(const at::Tensor& img, at::Tensor grid, const std::string& mode, const json& fill) {
  const bool fp = img.is_floating_point();
  auto x = fp ? img : img.to(at::kFloat);
  const int64_t n = x.size(0), c = x.size(1);
  if (n > 1) grid = grid.expand({n, -1, -1, -1});
  if (!fill.is_null()) x = at::cat({x, at::ones({n, 1, x.size(2), x.size(3)}, x.options())}, 1);
  x = at::grid_sampler(x, grid, mode == "nearest" ? 1 : 0, 0, false);
  if (!fill.is_null()) {
    auto mask = x.narrow(1, c, 1).expand({n, c, x.size(2), x.size(3)});
    x = x.narrow(1, 0, c);
    const auto values = fill.is_array() ? fill.get<std::vector<double>>() : std::vector<double>{fill.get<double>()};
    const auto f = floats(values, x.device()).view({1, -1, 1, 1});
    x = mode == "nearest" ? at::where(mask < 0.5, f.expand_as(x), x) : x.sub(f).mul_(mask).add_(f);
  }
  return fp ? x : x.round_().to(img.scalar_type());
}

// _get_perspective_coeffs: lstsq ("gels") in float64 on the host, then float32.
std::vector<double> perspective_coeffs(const json& start, const json& end) {
  auto a = at::zeros({8, 8}, at::kDouble);
  auto b = at::zeros({8}, at::kDouble);
  for (int i = 0; i < 4; ++i) {
    const double px = end[i][0], py = end[i][1], sx = start[i][0], sy = start[i][1];
    a[2 * i] = at::tensor(std::vector<double>{px, py, 1, 0, 0, 0, -sx * px, -sx * py}, at::kDouble);
    a[2 * i + 1] = at::tensor(std::vector<double>{0, 0, 0, px, py, 1, -sy * px, -sy * py}, at::kDouble);
    b[2 * i] = sx;
    b[2 * i + 1] = sy;
  }
  const auto solution = std::get<0>(at::linalg_lstsq(a, b, c10::nullopt, std::string("gels"))).to(at::kFloat);
  std::vector<double> out(8);
  for (int i = 0; i < 8; ++i) out[i] = solution[i].item<float>();
  return out;
}

// torchvision v2's call for vector `v` on `x` (on `d`); `coeffs` overrides the perspective's.
at::Tensor torchvision_warp(const json& v, const at::Tensor& x, const c10::Device& d,
                            const std::vector<double>* coeffs = nullptr) {
  const auto& p = v.at("params");
  const std::string t = v.at("transform");
  const int64_t h = x.size(2), w = x.size(3);
  const json fill = p.value("fill", json());
  const std::string mode = p.value("interpolation", "nearest");
  if (t == "perspective") {
    const auto k = coeffs ? *coeffs : perspective_coeffs(p.at("startpoints"), p.at("endpoints"));
    return apply_grid(x, perspective_grid(k, w, h, d), mode, fill);
  }
  const json center = p.value("center", json());
  const double cx = center.is_null() ? 0.0 : center[0].get<double>() - w * 0.5;
  const double cy = center.is_null() ? 0.0 : center[1].get<double>() - h * 0.5;
  if (t == "affine") {
    const auto m = inverse_affine(cx, cy, p.at("angle"), p.at("translate")[0], p.at("translate")[1], p.at("scale"),
                                  p.at("shear")[0], p.at("shear")[1]);
    return apply_grid(x, affine_grid(m, w, h, w, h, d), mode, fill);
  }
  double angle = std::fmod(p.at("angle").get<double>(), 360.0);  // Python's angle % 360
  if (angle < 0) angle += 360.0;
  const bool expand = p.value("expand", false);
  if (center.is_null()) {  // rotate_image's fast paths
    if (angle == 0) return x.clone();
    if (angle == 180) return at::rot90(x, 2, {-2, -1});
    if ((expand || h == w) && (angle == 90 || angle == 270)) return at::rot90(x, angle == 90 ? 1 : 3, {-2, -1});
  }
  const auto m = inverse_affine(cx, cy, -angle, 0.0, 0.0, 1.0, 0.0, 0.0);
  const auto [ow, oh] = expand ? affine_output_size(m, w, h) : std::pair<int64_t, int64_t>{w, h};
  return apply_grid(x, affine_grid(m, w, h, ow, oh, d), mode, fill);
}

// resize_image as torchvision runs it on CUDA: no uint8 kernel there, so
// uint8 goes through float32; resized_crop crops first (crop_image: a box
// outside the image is padded with 0).
at::Tensor torchvision_resize(const json& v, at::Tensor x) {
  const auto& p = v.at("params");
  if (v.at("transform") == "resized_crop") {
    const int64_t top = p.at("top"), left = p.at("left"), height = p.at("height"), width = p.at("width");
    const int64_t h = x.size(2), w = x.size(3), right = left + width, bottom = top + height;
    x = x.slice(2, std::max<int64_t>(top, 0), std::max<int64_t>(std::min(bottom, h), 0))
            .slice(3, std::max<int64_t>(left, 0), std::max<int64_t>(std::min(right, w), 0));
    if (left < 0 || top < 0 || right > w || bottom > h) {
      x = at::constant_pad_nd(x, {std::max<int64_t>(std::min<int64_t>(right, 0) - left, 0),
                                  std::max<int64_t>(right - std::max(w, left), 0),
                                  std::max<int64_t>(std::min<int64_t>(bottom, 0) - top, 0),
                                  std::max<int64_t>(bottom - std::max(h, top), 0)},
                              0);
    }
  }
  const auto size = p.at("size").get<std::vector<int64_t>>();
  EXPECT_EQ(size.size(), 2u) << v.at("id");
  if (size[0] == x.size(2) && size[1] == x.size(3)) return x;
  const std::string mode = p.at("interpolation");
  const bool antialias = p.value("antialias", true);
  const auto dtype = x.scalar_type();
  auto y = x.is_floating_point() ? x : x.to(at::kFloat);
  const bool cubic = mode == "bicubic";
  EXPECT_TRUE(cubic || mode == "bilinear") << v.at("id");
  if (antialias) {
    y = cubic ? at::_upsample_bicubic2d_aa(y, size, false) : at::_upsample_bilinear2d_aa(y, size, false);
  } else {
    y = cubic ? at::upsample_bicubic2d(y, size, false) : at::upsample_bilinear2d(y, size, false);
  }
  if (dtype == at::kByte) {
    if (cubic) y = y.clamp_(0, 255);
    y = y.round_().to(dtype);
  }
  return y;
}

bool bit_for_bit(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  if (a.scalar_type() == at::kFloat) return at::equal(a.contiguous().view(at::kInt), b.contiguous().view(at::kInt));
  return at::equal(a, b);
}

// The perspective coefficients with each one whose exact value is 0 (here
// 0 or a residue under 1e-12) as 0 or as a residue of either sign: a host's
// LAPACK leaves 0 or about 2^-52 of the largest coefficient of the same
// output (c0..c2, c3..c5; the denominator's c6, c7 against its 1).
std::vector<std::vector<double>> residue_choices(const std::vector<double>& k) {
  const auto largest = [&](size_t first, size_t count) {
    double m = 0.0;
    for (size_t j = first; j < first + count; ++j) m = std::max(m, std::fabs(k[j]));
    return m;
  };
  std::vector<std::vector<double>> out = {k};
  for (size_t i = 0; i < k.size(); ++i) {
    if (std::fabs(k[i]) > 1e-12) continue;
    const double scale = i < 3 ? largest(0, 3) : i < 6 ? largest(3, 3) : 1.0;
    const double r = k[i] != 0.0 ? std::fabs(k[i]) : static_cast<double>(static_cast<float>(std::ldexp(scale, -52)));
    std::vector<std::vector<double>> more;
    for (const auto& o : out) {
      for (const double choice : {0.0, r, -r}) {
        if (choice == o[i]) continue;
        auto c = o;
        c[i] = choice;
        more.push_back(c);
      }
    }
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

struct Outcome {
  int vectors = 0, exact = 0, residue = 0;
};

// A program of torchvision's: the vector, its input on the device, and
// perspective coefficients in place of its own (or null); the output on the CPU.
using Program = std::function<at::Tensor(const json&, const at::Tensor&, const std::vector<double>*)>;

const std::set<std::string> kResizes = {"resize", "resized_crop"};
const std::set<std::string> kWarps = {"affine", "rotate", "perspective"};

// The set's vectors of `transforms` through `run`; tallies by transform and
// dtype, and the ids that differ.
std::map<std::string, Outcome> replay(const std::string& dir, const std::set<std::string>& transforms,
                                      const Program& run, std::vector<std::string>* differing) {
  std::ifstream in(dir + "manifest.json");
  const auto m = json::parse(in);
  std::map<std::string, Outcome> out;
  for (const auto& v : m.at("vectors")) {
    const std::string t = v.at("transform");
    if (transforms.count(t) == 0) continue;
    const auto x = read_npy(dir + v.at("input").get<std::string>());
    const auto want = read_npy(dir + v.at("output").get<std::string>());
    auto& o = out[t + " " + v.at("dtype").get<std::string>()];
    ++o.vectors;
    bool ok = bit_for_bit(run(v, x, nullptr), want);
    if (!ok && t == "perspective") {
      const auto& p = v.at("params");
      const auto choices = residue_choices(perspective_coeffs(p.at("startpoints"), p.at("endpoints")));
      for (size_t i = 1; i < choices.size() && !ok; ++i) ok = bit_for_bit(run(v, x, &choices[i]), want);
      o.residue += ok;
    }
    o.exact += ok;
    if (!ok) differing->push_back(v.at("id"));
  }
  return out;
}

std::pair<int, int> totals(const std::map<std::string, Outcome>& tally, const std::string& dtype = "") {
  int vectors = 0, exact = 0;
  for (const auto& [key, o] : tally) {
    if (!dtype.empty() && key.find(dtype) == std::string::npos) continue;
    vectors += o.vectors;
    exact += o.exact;
  }
  return {vectors, exact};
}

void print(const std::string& title, const std::map<std::string, Outcome>& tally) {
  std::cout << title << "\n| transform | dtype | vectors | bit for bit | of which by the lstsq residue's sign |\n";
  for (const auto& [key, o] : tally) {
    const auto space = key.find(' ');
    std::cout << fmt::format("| {} | {} | {} | {} | {} |\n", key.substr(0, space), key.substr(space + 1), o.vectors,
                             o.exact, o.residue);
  }
}

class VdevCudaGoldensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtins();
    if (!vdev::compiled()) GTEST_SKIP() << "this build has no virtual device (DEVPARITY_WITH_VDEV)";
    dir_ = testing::cuda_goldens_dir();
    if (dir_.empty()) {
      if (getenv("CI") != nullptr) FAIL() << "../shared/cuda-goldens is missing: CI must provide it";
      GTEST_SKIP() << "../shared/cuda-goldens is not beside the clone (DEVPARITY_SHARED elsewhere)";
    }
    mode_.emplace(testing::mode_with_cuda_arithmetic(true));
    at::globalContext().setAllowTF32CuBLAS(false);  // torch's default, and the goldens'
  }
  void TearDown() override {
    mode_.reset();
    at::globalContext().setAllowTF32CuBLAS(tf32_was_);
  }

  static Program warps_on(const c10::Device& d) {
    return [d](const json& v, const at::Tensor& x, const std::vector<double>* k) {
      return torchvision_warp(v, x.to(d), d, k).cpu();
    };
  }
  static Program resizes_on(const c10::Device& d) {
    return [d](const json& v, const at::Tensor& x, const std::vector<double>*) {
      return torchvision_resize(v, x.to(d)).cpu();
    };
  }

  // Every vector of `transforms` on vdev:1 is the GPU's, bit for bit.
  void expect_the_gpus(const std::set<std::string>& transforms, const Program& run, int shipped) {
    std::vector<std::string> differing;
    const auto tally = replay(dir_, transforms, run, &differing);
    print("torchvision v2 on vdev:1 against the GPU", tally);
    const auto [vectors, exact] = totals(tally);
    EXPECT_EQ(exact, vectors) << fmt::format("differ: {}", fmt::join(differing, ", "));
    if (getenv("DEVPARITY_CUDA_GOLDENS_DIR") == nullptr) EXPECT_EQ(vectors, shipped);
  }

  // The twins: the same programs without CUDA's arithmetic, on vdev and on
  // the CPU, miss `dtype` vectors the models hit.
  void expect_others_miss(const std::set<std::string>& transforms, Program (*on)(const c10::Device&),
                          const std::string& dtype) {
    for (const bool on_cpu : {false, true}) {
      const vdev::ModeScope mode(testing::mode_with_cuda_arithmetic(on_cpu));  // on the CPU the models never run
      std::vector<std::string> differing;
      const auto tally = replay(dir_, transforms, on(on_cpu ? c10::Device(at::kCPU) : vdev::device(1)), &differing);
      const auto [vectors, exact] = totals(tally, dtype);
      std::cout << fmt::format("{}: {} of {} {} vectors bit for bit\n",
                               on_cpu ? "the CPU" : "vdev:1 with --vdev-arithmetic cpu", exact, vectors, dtype);
      EXPECT_LT(exact, vectors * 9 / 10) << (on_cpu ? "cpu" : "vdev without the models");
    }
  }

  std::string dir_;
  const bool tf32_was_ = at::globalContext().allowTF32CuBLAS();
  std::optional<vdev::ModeScope> mode_;
};

TEST_F(VdevCudaGoldensTest, TorchvisionsWarpsAreTheGpusBitForBit) { expect_the_gpus(kWarps, warps_on(vdev::device(1)), 288); }

TEST_F(VdevCudaGoldensTest, TorchvisionsResizesAreTheGpusBitForBit) {
  expect_the_gpus(kResizes, resizes_on(vdev::device(1)), 316);
}

// The CPU's grid products and sampler round where CUDA fuses.
TEST_F(VdevCudaGoldensTest, WithoutCudasArithmeticTheFloatWarpsDiffer) {
  expect_others_miss(kWarps, warps_on, "float32");
}

// The CPU's float kernels differ in the last bits everywhere.
TEST_F(VdevCudaGoldensTest, WithoutCudasArithmeticTheFloatResizesDiffer) {
  expect_others_miss(kResizes, resizes_on, "float32");
}

}  // namespace
}  // namespace devparity
