// The catalog against the real torchvision, on two sets of vectors written by
// tools/torchvision_goldens.py: from torchvision 0.21 (torch 2.6) on the CPU
// in the trixie root, committed under tests/transforms/goldens/torchvision;
// and from torchvision 0.26 (torch 2.11) on a real CUDA GPU
// (../shared/cuda-goldens, unpacked under the build tree: tests/support/cuda_goldens.h); and in
// float16 and bfloat16 from both (tests/transforms/goldens/*-half.txz). Each
// vector states how it is compared (the script's docstring): bit for bit;
// exact but for the ties the catalog notes (rounding ties, nearest at a
// midpoint); or within a float tolerance with its reason. A vector made on
// CUDA is compared with the strategy that models CUDA (cuda_device_compare).

#include "harness/base/compare.h"
#include "harness/base/dtype.h"
#include "harness/base/npy.h"
#include "harness/builtins.h"
#include "harness/subject/execution.h"
#include "harness/subject/transform_registry.h"
#include "tests/support/cuda_goldens.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <set>
#include <string>


namespace devparity {
namespace {

using nlohmann::json;

// DEVPARITY_GOLDENS_DIR points the CPU test at another set (tools/torchvision_goldens.py --sweep).
const std::string kDir = getenv("DEVPARITY_GOLDENS_DIR") != nullptr
                             ? std::string(getenv("DEVPARITY_GOLDENS_DIR")) + "/"
                             : std::string(DEVPARITY_SOURCE_DIR) + "/tests/transforms/goldens/torchvision/";

json manifest(const std::string& dir) {
  std::ifstream in(dir + "manifest.json");
  EXPECT_TRUE(in) << "missing " << dir << "manifest.json (tools/make_torchvision_goldens.sh makes it)";
  return in ? json::parse(in) : json::object();
}

Tolerance tolerance_of(const json& how) {
  Tolerance t;
  if (how.at("mode") == "float") {
    t.atol = how.at("atol").get<double>();
    t.rtol = how.at("rtol").get<double>();
    t.reason = how.at("reason").get<std::string>();
    t.is_default = false;
    if (how.contains("mismatch_fraction")) {
      t.mismatch_fraction = how.at("mismatch_fraction").get<double>();
      t.outlier_atol = how.at("outlier_atol").get<double>();
    }
  }
  return t;
}

struct Outcome {
  bool ok = true;
  std::string line;
  int64_t ties = 0;
  CompareStats stats;
  int64_t ulps = 0;  ///< float32: max_ulps_off_zero()
};

// The largest distance in float32 units in the last place between a and b
// where both are at least 1/16 in magnitude and of one sign: near 0, a few
// ulps of 1 are millions of ulps of 1e-6 and say nothing.
int64_t max_ulps_off_zero(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != at::kFloat || a.numel() == 0) return 0;
  const auto keep = at::minimum(a.abs(), b.abs()).ge(1.0 / 16) & (a.ge(0) == b.ge(0));
  const auto ulps = (a.contiguous().view(at::kInt).to(at::kLong) - b.contiguous().view(at::kInt).to(at::kLong)).abs();
  return (ulps * keep.to(at::kLong)).max().item<int64_t>();
}

// A vector's array in its dtype: bfloat16 ones are stored as float32, which holds them exactly.
at::Tensor read_array(const std::string& path, const json& v) {
  auto t = read_npy(path);
  if (v.contains("stored_as") && v.at("dtype") == "bfloat16" && t.scalar_type() == at::kFloat) {
    t = t.to(at::kBFloat16);
  }
  return t;
}

// `as`: run the catalog in another dtype than the vector's and round its output to the vector's
// (the half precision twin).
Outcome check_vector(const std::string& dir, const json& v, c10::optional<at::ScalarType> as = c10::nullopt) {
  const auto* t = TransformRegistry::global().find(v.at("transform").get<std::string>());
  if (t == nullptr) return {false, "unknown transform"};
  auto x = read_array(dir + v.at("input").get<std::string>(), v);
  const auto golden = read_array(dir + v.at("output").get<std::string>(), v);
  if (as) x = x.to(*as);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
  ExecuteOptions options;
  options.keep_unrounded = true;
  auto e = execute(*t, x, t->sample(v.at("params"), x.sizes(), gen), at::kCPU, options);
  if (!e.ran) return {false, "did not run: " + e.error.message};
  if (as && e.output.scalar_type() == *as) e.output = e.output.to(golden.scalar_type());
  if (e.output.sizes() != golden.sizes() || e.output.scalar_type() != golden.scalar_type()) {
    return {false, fmt::format("output {} {} where torchvision gives {} {}", fmt::join(e.output.sizes(), "x"),
                               c10::toString(e.output.scalar_type()), fmt::join(golden.sizes(), "x"),
                               c10::toString(golden.scalar_type()))};
  }
  const auto& how = v.at("compare");
  const std::string mode = how.at("mode");
  const Tolerance tol = tolerance_of(how);
  // The catalog's output is the reference: its notes say where ties are.
  const auto s = compare_tensors(e.output, golden, tol, mode == "exact" ? nullptr : &e.unrounded);
  Outcome o;
  o.stats = s;
  o.ulps = max_ulps_off_zero(e.output, golden);
  o.ties = s.rounding_ties + s.sampling_ties;
  o.ok = s.within(tol) && (mode != "exact" || s.differing == 0);
  o.line = fmt::format("{} differ of {} (max |diff| {:g}, {} mismatches; rounding ties {}, sampling ties {})",
                       s.differing, s.numel, s.max_abs, s.mismatches, s.rounding_ties, s.sampling_ties);
  return o;
}

TEST(TorchvisionGoldensTest, TheCatalogGivesTorchvisionsOutputs) {
  register_builtins();
  const auto m = manifest(kDir);
  ASSERT_TRUE(m.contains("vectors"));
  std::map<std::string, int> per_mode;
  std::set<std::string> transforms;
  int64_t ties = 0;
  for (const auto& v : m.at("vectors")) {
    SCOPED_TRACE(fmt::format("{}: {} {} (torchvision: {})", v.at("id").get<std::string>(),
                             v.at("transform").get<std::string>(), v.at("params").dump(),
                             v.at("torchvision").get<std::string>()));
    const auto o = check_vector(kDir, v);
    EXPECT_TRUE(o.ok) << o.line << "; compared " << v.at("compare").dump();
    ++per_mode[v.at("compare").at("mode").get<std::string>()];
    transforms.insert(v.at("transform").get<std::string>());
    ties += o.ties;
  }
  std::cout << fmt::format("{} vectors from torch {} / torchvision {} ({}): {} bit for bit, {} exact but for "
                           "noted ties ({} ties met), {} within float tolerances; {} transforms\n",
                           m.at("vectors").size(), m.at("torch").get<std::string>(),
                           m.at("torchvision").get<std::string>(), m.at("cpu_capability").get<std::string>(),
                           per_mode["exact"], per_mode["ties"], ties, per_mode["float"], transforms.size());
  // Every torchvision-following transform of the catalog has vectors.
  if (getenv("DEVPARITY_GOLDENS_DIR") != nullptr) return;
  for (const char* name : {"resize", "resized_crop", "rotate", "affine", "perspective", "pad", "crop",
                           "center_crop", "hflip", "vflip", "adjust_brightness", "adjust_contrast",
                           "adjust_saturation", "adjust_sharpness", "adjust_hue", "adjust_gamma", "autocontrast",
                           "equalize", "invert", "posterize", "solarize", "rgb_to_grayscale", "normalize",
                           "to_dtype", "color_jitter", "erasing"}) {
    EXPECT_TRUE(transforms.count(name)) << name << " has no golden vector";
  }
}

// The committed vectors are what the script writes: an edited or truncated
// file would make the comparison above meaningless.
void expect_complete(const std::string& dir, size_t at_least) {
  const auto m = manifest(dir);
  ASSERT_TRUE(m.contains("vectors"));
  EXPECT_GE(m.at("vectors").size(), at_least);
  for (const auto& v : m.at("vectors")) {
    const auto golden = read_array(dir + v.at("output").get<std::string>(), v);
    EXPECT_EQ(golden.dim(), 4) << v.at("id");
    const auto made = v.at("transform") == "to_dtype" ? v.at("params").at("dtype") : v.at("dtype");
    EXPECT_EQ(golden.scalar_type(), parse_dtype(made.get<std::string>())) << v.at("id");
  }
}

TEST(TorchvisionGoldensTest, TheVectorsAreComplete) {
  expect_complete(kDir, getenv("DEVPARITY_GOLDENS_DIR") == nullptr ? 100u : 0u);
}

// ------------------------------------------------------------ CUDA's outputs

// The catalog's float32 path is the CPU's arithmetic: on a float32 vector
// made on CUDA it differs in the last bits where CUDA's kernels round in
// another order or fuse a multiply-add. The bound per family, from the
// differences measured on ../shared/cuda-goldens (docs/transforms.md,
// "Against a real GPU"): max |diff| on values in [0, 1] (resize 2.3e-6,
// colour 2.4e-7), with headroom. Warps keep the vector's own comparison
// (1e-5, and nearest samples at an exact midpoint are noted ties).
struct FamilyBound {
  const char* family;
  std::set<std::string> transforms;
  double atol;  ///< float32; 0: bit for bit; negative: the vector's own comparison
  const char* reason;
};

const std::vector<FamilyBound>& cuda_float_bounds() {
  static const std::vector<FamilyBound> bounds = {
      {"resize", {"resize", "resized_crop"}, 4e-6,
       "CUDA's interpolate fuses multiply-adds where the CPU's kernel rounds each product (Note [CUDA's float "
       "resize]); about 16 roundings of terms up to 1.3 per pass on each side"},
      {"warp", {"affine", "rotate", "perspective"}, -1.0, "the vector's own: grid_sample coordinates in float32"},
      {"colour", {"adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_sharpness"}, 4.8e-7,
       "elementwise float32 blends: CUDA contracts a * b + c where the CPU rounds the product first; 4 ulps of 1"},
      {"pad", {"pad"}, 0.0, "copies: bit for bit"},
  };
  return bounds;
}

const FamilyBound* family_of(const std::string& transform) {
  for (const auto& b : cuda_float_bounds()) {
    if (b.transforms.count(transform)) return &b;
  }
  return nullptr;
}

// A vector made on CUDA as the catalog models CUDA: uint8 bilinear and
// bicubic resizes through float_round_trip, bit for bit; float32 vectors
// within their family's bound; the rest as the vector says.
json as_cuda_compares(json v) {
  const auto& p = v.at("params");
  const bool resize = v.at("transform") == "resize" || v.at("transform") == "resized_crop";
  if (resize && v.at("dtype") == "uint8" && (p.value("interpolation", "") == "bilinear" ||
                                             p.value("interpolation", "") == "bicubic")) {
    v["params"]["uint8_strategy"] = "float_round_trip";
    v["compare"] = {{"mode", "exact"}};
  } else if (v.at("dtype") == "float32") {
    const auto* bound = family_of(v.at("transform").get<std::string>());
    if (bound != nullptr && bound->atol == 0.0) {
      v["compare"] = {{"mode", "exact"}};
    } else if (bound != nullptr && bound->atol > 0.0) {
      v["compare"] = {{"mode", "float"}, {"atol", bound->atol}, {"rtol", 0.0}, {"reason", bound->reason}};
    }
  }
  return v;
}

// Per family and dtype: vectors, bit for bit, max ulps, max |diff|.
struct Tally {
  int vectors = 0, exact = 0;
  int64_t max_ulp = 0;
  double max_abs = 0.0;
  int64_t differing = 0, numel = 0;
};

TEST(CudaGoldensTest, TheCatalogGivesCudasOutputs) {
  const auto dir = testing::cuda_goldens_dir();
  if (dir.empty()) {
    if (getenv("CI") != nullptr) FAIL() << "../shared/cuda-goldens is missing: CI must provide it";
    GTEST_SKIP() << "../shared/cuda-goldens is not beside the clone (DEVPARITY_SHARED elsewhere)";
  }
  register_builtins();
  const auto m = manifest(dir);
  ASSERT_TRUE(m.contains("vectors"));
  std::map<std::string, Tally> tallies;
  int uint8_resizes = 0;
  for (const auto& made : m.at("vectors")) {
    ASSERT_EQ(made.value("device", ""), "cuda") << made.at("id");
    const auto v = as_cuda_compares(made);
    SCOPED_TRACE(fmt::format("{}: {} {} (torchvision on CUDA: {})", v.at("id").get<std::string>(),
                             v.at("transform").get<std::string>(), v.at("params").dump(),
                             v.at("torchvision").get<std::string>()));
    const auto o = check_vector(dir, v);
    EXPECT_TRUE(o.ok) << o.line << "; compared " << v.at("compare").dump();
    const auto* family = family_of(v.at("transform").get<std::string>());
    auto& t = tallies[fmt::format("{} {}", family ? family->family : "other", v.at("dtype").get<std::string>())];
    ++t.vectors;
    t.exact += o.stats.differing == 0;
    t.max_ulp = std::max(t.max_ulp, o.ulps);
    t.max_abs = std::max(t.max_abs, o.stats.max_abs);
    t.differing += o.stats.differing;
    t.numel += o.stats.numel;
    uint8_resizes += v.at("params").value("uint8_strategy", "") == "float_round_trip";
  }
  std::cout << fmt::format("{} vectors from torch {} / torchvision {} on CUDA; {} uint8 resizes through "
                           "float_round_trip\n",
                           m.at("vectors").size(), m.at("torch").get<std::string>(),
                           m.at("torchvision").get<std::string>(), uint8_resizes);
  std::cout << "| family | dtype | vectors | bit for bit | max ulps (off 0) | max abs diff | values differing |\n";
  for (const auto& [key, t] : tallies) {
    const auto space = key.find(' ');
    std::cout << fmt::format("| {} | {} | {} | {} | {} | {:.3g} | {} of {} |\n", key.substr(0, space),
                             key.substr(space + 1), t.vectors, t.exact, t.max_ulp, t.max_abs, t.differing, t.numel);
  }
  // The shipped set's shape; another set (DEVPARITY_CUDA_GOLDENS_DIR) is taken as it is.
  if (getenv("DEVPARITY_CUDA_GOLDENS_DIR") == nullptr) EXPECT_GE(uint8_resizes, 150);
}

// The comparison's twin: the same uint8 resizes through a strategy that does
// not model CUDA (the exact value rounded once) must fail on some vectors, or
// the test above could not tell CUDA's path from another.
TEST(CudaGoldensTest, AnotherStrategyFailsTheUint8Resizes) {
  const auto dir = testing::cuda_goldens_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/cuda-goldens is not beside the clone";
  register_builtins();
  int compared = 0, failed = 0;
  const auto m = manifest(dir);
  for (const auto& made : m.at("vectors")) {
    auto v = as_cuda_compares(made);
    if (v.at("params").value("uint8_strategy", "") != "float_round_trip") continue;
    v["params"]["uint8_strategy"] = "fixed_point";
    ++compared;
    failed += !check_vector(dir, v).ok;
  }
  std::cout << fmt::format("fixed_point against CUDA's uint8 resizes: {} of {} vectors differ\n", failed, compared);
  EXPECT_GT(failed, compared / 4);
}

TEST(CudaGoldensTest, TheVectorsAreComplete) {
  const auto dir = testing::cuda_goldens_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/cuda-goldens is not beside the clone";
  expect_complete(dir, getenv("DEVPARITY_CUDA_GOLDENS_DIR") == nullptr ? 800u : 0u);
}

// ------------------------------------------------------------ half precision

// tools/torchvision_goldens.py --dtypes float16,bfloat16: torchvision 0.21 on the CPU (torch
// 2.6, the trixie root) and torchvision 0.26 on an NVIDIA H100 (torch 2.11, issue 40's device
// check, tools/gpu/half_precision.sh), committed as archives. The catalog runs in the vector's
// dtype on the CPU (through float32 where this LibTorch's CPU lacks the dtype's kernel, Note
// [Half precision reference]) and must be within the vector's half precision tolerance: 4 units
// of [0.5, 1) absolute, 8 relative (2^-9 and 2^-8 for float16, 2^-6 and 2^-5 for bfloat16),
// since torchvision rounds after each op and the catalog where its own ops end.
struct HalfSet {
  const char* archive;  ///< under tests/transforms/goldens
  const char* folder;
  const char* made_on;
};

const HalfSet kHalfSets[] = {{"torchvision-half.txz", "torchvision-half", "CPU"},
                             {"cuda-half.txz", "cuda-half", "CUDA"}};

// Where torchvision's half precision arithmetic and the catalog's part by more than the vectors'
// own tolerance, the bound from what the shipped sets show (docs/half-precision.md):
// - warps compute their sampling coordinates in the half dtype (a coordinate near 16 has a
//   spacing of 1/64 pixel in float16, 1/8 in bfloat16): bilinear samples moved by up to 14
//   units of the spacing at 1 on the CPU set; nearest picks flip where a rounded coordinate
//   crosses a half (up to 2.1% of a vector's elements): 32 units, and up to 5% by up to 1;
// - to_dtype scales bfloat16 by 255.999 in bfloat16 (8 bits: a spacing of 1 near 255), so the
//   truncated level may differ by one.
json as_half_compare(json v) {
  const std::string transform = v.at("transform");
  const double eps = v.at("dtype") == "float16" ? 0x1p-10 : 0x1p-7;
  if (transform == "affine" || transform == "rotate" || transform == "perspective") {
    v["compare"] = {{"mode", "float"}, {"atol", 32 * eps}, {"rtol", 2 * eps}, {"mismatch_fraction", 0.05},
                    {"outlier_atol", 1.0},
                    {"reason", "sampling coordinates in the half dtype: interpolated samples move, nearest picks flip"}};
  } else if (transform == "to_dtype" && v.at("dtype") == "bfloat16") {
    v["compare"] = {{"mode", "float"}, {"atol", 1.0}, {"rtol", 0.0},
                    {"reason", "255.999 * x rounded to bfloat16 may truncate to the neighbouring level"}};
  }
  return v;
}

std::string half_dir(const HalfSet& set) {
  return testing::unpacked(std::filesystem::path(DEVPARITY_SOURCE_DIR) / "tests/transforms/goldens" / set.archive, set.folder);
}

TEST(HalfGoldensTest, TheCatalogGivesTorchvisionsHalfPrecisionOutputs) {
  register_builtins();
  for (const auto& set : kHalfSets) {
    const auto dir = half_dir(set);
    ASSERT_FALSE(dir.empty()) << set.archive << " is missing";
    const auto m = manifest(dir);
    // "transform dtype" -> vectors, max |diff| / eps, largest fraction of a vector's elements differing
    std::map<std::string, std::tuple<int, double, double>> worst;
    for (const auto& made : m.at("vectors")) {
      const auto v = as_half_compare(made);
      SCOPED_TRACE(fmt::format("{} ({} set): {} {} (torchvision: {})", v.at("id").get<std::string>(), set.made_on,
                               v.at("transform").get<std::string>(), v.at("params").dump(),
                               v.at("torchvision").get<std::string>()));
      const auto o = check_vector(dir, v);
      EXPECT_TRUE(o.ok) << o.line << "; compared " << v.at("compare").dump();
      const double eps = v.at("dtype") == "float16" ? 0x1p-10 : 0x1p-7;
      auto& w = worst[fmt::format("{} {}", v.at("transform").get<std::string>(), v.at("dtype").get<std::string>())];
      ++std::get<0>(w);
      std::get<1>(w) = std::max(std::get<1>(w), o.stats.max_abs / eps);
      std::get<2>(w) = std::max(std::get<2>(w), o.stats.numel ? 1.0 * o.stats.mismatches / o.stats.numel : 0.0);
    }
    std::cout << fmt::format("{} half precision vectors from torch {} / torchvision {} on the {} ({} calls "
                             "torchvision refused there)\n",
                             m.at("vectors").size(), m.at("torch").get<std::string>(),
                             m.at("torchvision").get<std::string>(), set.made_on, m.value("unsupported", json::array()).size());
    std::cout << "| transform | dtype | vectors | max abs diff (units of the dtype's spacing at 1) | most "
                 "elements outside the vector's own bound |\n";
    for (const auto& [key, w] : worst) {
      const auto space = key.find(' ');
      std::cout << fmt::format("| {} | {} | {} | {:.2f} | {:.2f}% |\n", key.substr(0, space), key.substr(space + 1),
                               std::get<0>(w), std::get<1>(w), 100 * std::get<2>(w));
    }
    EXPECT_GE(m.at("vectors").size(), 140u) << set.archive;
  }
}

// The comparison's twin: the catalog in bfloat16 (the input rounded to it, the output back to
// float16) against the float16 vectors must fail most of them, or the tolerance could not tell
// float16's arithmetic from a coarser one.
TEST(HalfGoldensTest, BfloatArithmeticFailsTheFloat16Vectors) {
  register_builtins();
  const auto dir = half_dir(kHalfSets[1]);
  ASSERT_FALSE(dir.empty());
  int compared = 0, failed = 0;
  const auto m = manifest(dir);
  for (const auto& v : m.at("vectors")) {
    if (v.at("dtype") != "float16" || v.at("transform") == "to_dtype") continue;
    ++compared;
    failed += !check_vector(dir, v, at::kBFloat16).ok;
  }
  std::cout << fmt::format("the catalog in bfloat16 against CUDA's float16 vectors: {} of {} fail\n", failed,
                           compared);
  EXPECT_GT(failed, compared * 3 / 4);
}

TEST(HalfGoldensTest, TheVectorsAreComplete) {
  for (const auto& set : kHalfSets) expect_complete(half_dir(set), 140u);
}

}  // namespace
}  // namespace devparity
