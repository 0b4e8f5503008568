// The catalog against the real torchvision: vectors written by
// tools/torchvision_goldens.py from torchvision 0.21 (torch 2.6) in the trixie
// root, committed under tests/transforms/goldens/torchvision. Each vector
// states how it is compared (the script's docstring): bit for bit; exact but
// for the ties the catalog notes (rounding ties, nearest at a midpoint); or
// within a float tolerance with its reason (nearest at a midpoint excused).

#include "harness/base/compare.h"
#include "harness/base/npy.h"
#include "harness/builtins.h"
#include "harness/subject/execution.h"
#include "harness/subject/transform_registry.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <string>

namespace devparity {
namespace {

using nlohmann::json;

// DEVPARITY_GOLDENS_DIR points the test at another set (tools/torchvision_goldens.py --sweep).
const std::string kDir = getenv("DEVPARITY_GOLDENS_DIR") != nullptr
                             ? std::string(getenv("DEVPARITY_GOLDENS_DIR")) + "/"
                             : std::string(DEVPARITY_SOURCE_DIR) + "/tests/transforms/goldens/torchvision/";

json manifest() {
  std::ifstream in(kDir + "manifest.json");
  EXPECT_TRUE(in) << "missing " << kDir << "manifest.json (tools/make_torchvision_goldens.sh makes it)";
  return in ? json::parse(in) : json::object();
}

Tolerance tolerance_of(const json& how) {
  Tolerance t;
  if (how.at("mode") == "float") {
    t.atol = how.at("atol").get<double>();
    t.rtol = how.at("rtol").get<double>();
    t.reason = how.at("reason").get<std::string>();
    t.is_default = false;
  }
  return t;
}

struct Outcome {
  bool ok = true;
  std::string line;
  int64_t ties = 0;
};

Outcome check_vector(const json& v) {
  const auto* t = TransformRegistry::global().find(v.at("transform").get<std::string>());
  if (t == nullptr) return {false, "unknown transform"};
  const auto x = read_npy(kDir + v.at("input").get<std::string>());
  const auto golden = read_npy(kDir + v.at("output").get<std::string>());
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
  ExecuteOptions options;
  options.keep_unrounded = true;
  const auto e = execute(*t, x, t->sample(v.at("params"), x.sizes(), gen), at::kCPU, options);
  if (!e.ran) return {false, "did not run: " + e.error.message};
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
  o.ties = s.rounding_ties + s.sampling_ties;
  o.ok = s.within(tol) && (mode != "exact" || s.differing == 0);
  o.line = fmt::format("{} differ of {} (max |diff| {:g}, {} mismatches; rounding ties {}, sampling ties {})",
                       s.differing, s.numel, s.max_abs, s.mismatches, s.rounding_ties, s.sampling_ties);
  return o;
}

TEST(TorchvisionGoldensTest, TheCatalogGivesTorchvisionsOutputs) {
  register_builtins();
  const auto m = manifest();
  ASSERT_TRUE(m.contains("vectors"));
  std::map<std::string, int> per_mode;
  std::set<std::string> transforms;
  int64_t ties = 0;
  for (const auto& v : m.at("vectors")) {
    SCOPED_TRACE(fmt::format("{}: {} {} (torchvision: {})", v.at("id").get<std::string>(),
                             v.at("transform").get<std::string>(), v.at("params").dump(),
                             v.at("torchvision").get<std::string>()));
    const auto o = check_vector(v);
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
TEST(TorchvisionGoldensTest, TheVectorsAreComplete) {
  const auto m = manifest();
  ASSERT_TRUE(m.contains("vectors"));
  if (getenv("DEVPARITY_GOLDENS_DIR") == nullptr) {
    EXPECT_GE(m.at("vectors").size(), 100u);
  }
  for (const auto& v : m.at("vectors")) {
    const auto golden = read_npy(kDir + v.at("output").get<std::string>());
    EXPECT_EQ(golden.dim(), 4) << v.at("id");
    EXPECT_EQ(golden.scalar_type(), v.at("transform") == "to_dtype"
                                        ? (v.at("params").at("dtype") == "uint8" ? at::kByte : at::kFloat)
                                        : (v.at("dtype") == "uint8" ? at::kByte : at::kFloat))
        << v.at("id");
  }
}

}  // namespace
}  // namespace devparity
