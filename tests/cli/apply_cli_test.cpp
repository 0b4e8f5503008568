// `devparity apply`: one transform on one input to an .npy, its explicit
// values and errors; image files (PNG, JPEG) as inputs.

#include "harness/base/npy.h"
#include "harness/base/png.h"
#include "tests/support/schema.h"
#include "tests/support/cli_fixture.h"
#include "tests/support/tools.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <set>

namespace devparity {
namespace {

using nlohmann::json;
using testing::describe;
using testing::run_cli;
using testing::shell_quote;

class CliApply : public testing::CliFixture {};

TEST_F(CliApply, ApplyWritesAnNpyOfTheInputsDtype) {
  for (auto dtype : {at::kFloat, at::kByte}) {
    const auto x = dtype == at::kByte ? at::randint(0, 256, {2, 3, 17, 11}).to(at::kByte)
                                      : at::rand({2, 3, 17, 11});
    write_npy(dir_.file("x.npy"), x);
    const json params = {{"size", {23, 37}}, {"interpolation", "bilinear"}, {"antialias", false}};
    const auto r = cli("apply resize --input x.npy --output y.npy --params " +
                       shell_quote(params.dump()));
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    const auto y = read_npy(dir_.file("y.npy"));
    EXPECT_EQ(y.scalar_type(), dtype);
    EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 3, 23, 37}));
    const auto summary = json::parse(r.out);
    EXPECT_EQ(summary["params"]["uint8_strategy"], "cpu_kernel");
    EXPECT_EQ(summary["output"]["shape"], json({2, 3, 23, 37}));
    // On the simulated second accelerator: the same bytes.
    const auto v = cli("apply resize --input x.npy --output v.npy --device vdev:1 --params " +
                       shell_quote(params.dump()));
    ASSERT_EQ(v.exit_code, 0) << describe(v);
    EXPECT_EQ(json::parse(v.out)["device"], "vdev:1");
    EXPECT_TRUE(at::equal(read_npy(dir_.file("v.npy")), y));
    if (dtype == at::kFloat) {
      // The same answer as LibTorch's own interpolate.
      EXPECT_TRUE(at::allclose(y, at::upsample_bilinear2d(x, {23, 37}, false), 1.3e-6, 1e-5));
    }
  }
  DEVPARITY_NEEDS(testing::python_has("numpy"), "python3-numpy is not installed (tools/setup.sh installs it)");
  const std::string check = "import numpy as n; a = n.load('y.npy'); "
                            "assert a.dtype == n.uint8 and a.shape == (2, 3, 23, 37)";
  EXPECT_EQ(std::system(("cd " + shell_quote(dir_.path()) + " && /usr/bin/python3 -c " +
                         shell_quote(check)).c_str()),
            0);
}

TEST_F(CliApply, ApplyTakesExplicitValuesInsteadOfDraws) {
  // The values documented in `list --json` replace sampling, the gate included:
  // the output is the same whatever the seed.
  auto apply = [&](const std::string& subject, const std::string& input, const json& params) {
    at::Tensor first;
    for (const char* seed : {"1", "2"}) {
      const auto r = cli("apply " + subject + " --input " + input + " --output o.npy --seed " +
                         seed + " --params " + shell_quote(params.dump()));
      EXPECT_EQ(r.exit_code, 0) << subject << " " << describe(r);
      const auto y = read_npy(dir_.file("o.npy"));
      if (first.defined()) {
        EXPECT_TRUE(at::equal(first, y)) << subject << " depends on the seed";
      }
      first = y;
    }
    return first;
  };
  write_npy(dir_.file("c.npy"), at::full({2, 3, 5, 4}, 0.4f));
  // Planckian: R and B scaled by the spec's ratios for the chosen rows.
  const auto bb = apply("planckian_jitter", "c.npy", {{"mode", "blackbody"}, {"idx", {0, 24}}});
  EXPECT_NEAR(bb[0][0][2][1].item<float>(), std::min(1.0, 0.4 * 1.673616), 2e-6);
  EXPECT_NEAR(bb[0][2][2][1].item<float>(), 0.4 * 0.003227, 2e-6);
  EXPECT_NEAR(bb[1][0][2][1].item<float>(), 0.4 * 0.752848, 2e-6);
  EXPECT_NEAR(bb[1][2][2][1].item<float>(), 0.4 * 1.490006, 2e-6);
  EXPECT_TRUE(at::equal(bb.select(1, 1), at::full({2, 5, 4}, 0.4f)));
  const auto cied = apply("planckian_jitter", "c.npy", {{"mode", "CIED"}, {"idx", {22, 5}}});
  EXPECT_NEAR(cied[0][0][0][0].item<float>(), 0.4 * (0.3217 / 0.4719), 2e-6);
  EXPECT_NEAR(cied[0][2][0][0].item<float>(), 0.4 * (0.6882 / 0.4719), 2e-6);
  EXPECT_NEAR(cied[1][0][0][0].item<float>(), 0.4 * (0.4654 / 0.4667), 2e-6);

  // Illumination: a spot of the given gain at the given centre, darkening for sign < 0.
  write_npy(dir_.file("z.npy"), at::zeros({2, 1, 9, 15}));
  const auto spot = apply("gaussian_illumination", "z.npy",
                          {{"gain", {0.1, 0.05}}, {"center", {0.5, {0.0, 1.0}}},
                           {"sigma", {0.5, 0.25}}, {"sign", {1, 1}}});
  // cy = round(4.5) = 4 and cx = round(7.5) = 8: torch.round halves to even.
  EXPECT_EQ(spot[0].argmax().item<int64_t>(), 4 * 15 + 8);
  EXPECT_EQ(spot[1].argmax().item<int64_t>(), 14);  // top right corner
  EXPECT_GT(spot[0].max().item<float>(), 0.08f);
  EXPECT_LE(spot[0].max().item<float>(), 0.1f);
  EXPECT_LE(spot[1].max().item<float>(), 0.05f);
  write_npy(dir_.file("u.npy"), at::full({1, 3, 9, 15}, 200, at::kByte));
  const auto dark = apply("gaussian_illumination", "u.npy",
                          {{"gain", 0.1}, {"center", 0.5}, {"sigma", 0.5}, {"sign", -1}});
  EXPECT_EQ(dark.scalar_type(), at::kByte);
  EXPECT_EQ(dark[0][1][4][8].item<uint8_t>(), dark.min().item<uint8_t>());  // ties after rounding
  EXPECT_LT(dark.min().item<uint8_t>(), 200 - 20);

  // JPEG: quality per sample; 100 is close to the input, 5 far from it.
  const auto ramp = at::linspace(0, 1, 32 * 24).reshape({1, 1, 32, 24}).expand({2, 3, 32, 24});
  write_npy(dir_.file("r.npy"), ramp.contiguous());
  const auto jpeg = apply("jpeg_codec_differentiable", "r.npy", {{"quality", {100, 5}}});
  auto mse = [&](int64_t b) { return (jpeg[b] - ramp[b]).pow(2).mean().item<double>(); };
  EXPECT_GT(-10.0 * std::log10(mse(0)), 40.0);
  EXPECT_GT(mse(1), 10.0 * mse(0));

  // Rescale: int(H * fy) x int(W * fx); a constant stays constant with and without antialias.
  for (bool antialias : {false, true}) {
    const auto r = apply("rescale", "u.npy",
                         {{"factor", {0.5, 0.25}}, {"interpolation", "bilinear"},
                          {"antialias", antialias}});
    EXPECT_EQ(r.sizes(), (std::vector<int64_t>{1, 3, 4, 3}));
    EXPECT_TRUE(at::equal(r, at::full({1, 3, 4, 3}, 200, at::kByte))) << antialias;
  }
}

TEST_F(CliApply, ApplyErrors) {
  write_npy(dir_.file("x.npy"), at::rand({1, 3, 8, 8}));
  write_npy(dir_.file("l.npy"), at::zeros({1, 3, 8, 8}, at::kLong));
  write_npy(dir_.file("u.npy"), at::zeros({1, 3, 8, 8}, at::kByte));
  struct Bad {
    std::string args;
    std::string words;
  };
  const std::vector<Bad> bad = {
      {"apply rezise --input x.npy --output y.npy", "unknown subject 'rezise'"},
      {"apply resize --input x.npy --output y.npy --params '{\"size\": [4'", "--params:1:12: invalid JSON"},
      {"apply resize --input x.npy --output y.npy --params '{\"size\": [4, 0]}'", "/size/1"},
      {"apply resize --input x.npy --output y.npy --params '[1]'", "must be a JSON object"},
      {"apply resize --input x.npy --output y.npy --params '{\"size\": [4, 4]}' --device cuda:0",
       "--device cuda:0"},
      {"apply resize --input x.npy --output y.npy --params '{\"size\": [4, 4]}' --device meta",
       "meta"},
      {"apply resize --input none.npy --output y.npy --params '{\"size\": [4, 4]}'", "none.npy"},
      {"apply resize --input l.npy --output y.npy --params '{\"size\": [4, 4]}'", "int64"},
      {"apply resize --output y.npy", "--input"},
      {"apply planckian_jitter --input x.npy --output y.npy --params '{\"idx\": [25]}'",
       "/idx/0: expected a number in [0, 24], got 25"},
      {"apply planckian_jitter --input x.npy --output y.npy --params '{\"mode\": \"CIED\", "
       "\"select_from\": [1, 2], \"idx\": [2]}'",
       "/idx/0"},
      {"apply gaussian_illumination --input x.npy --output y.npy --params '{\"sigma\": [0.5, 1]}'",
       "/sigma: expected one value or [y, x] pair per sample (1)"},
      {"apply jpeg_codec_differentiable --input x.npy --output y.npy --params '{\"qualty\": 5}'",
       "qualty"},
      {"apply jpeg_codec_differentiable --input u.npy --output y.npy", "uint8"},
      {"apply rescale --input x.npy --output y.npy", "factor"},
      {"apply rescale --input x.npy --output y.npy --params '{\"factor\": 0.01}'", "0x0 output"},
  };
  for (const auto& b : bad) {
    const auto r = cli(b.args);
    EXPECT_EQ(r.exit_code, 2) << b.args << "\n" << describe(r);
    EXPECT_NE(r.err.find(b.words), std::string::npos) << b.args << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.file("y.npy")));
}

TEST(CliInputFiles, PngAndJpegFilesAreInputs) {
  testing::TempDir dir;
  write_png(dir.file("photo.png"), at::randint(0, 256, {3, 12, 9}).to(at::kByte));
  const auto jpeg = testing::source_path("tests/fuzz/corpus/colour_444_optimized.jpg");
  dir.write("files.json", json({{"cases",
                                 {{{"name", "files"}, {"subject", "resize"},
                                   {"params", {{"size", {7, 5}}, {"interpolation", "bilinear"}}},
                                   {"inputs", {{{"file", "photo.png"}}, {{"file", jpeg}}}}}}}})
                              .dump());
  const auto r = run_cli("run --suite files.json --devices cpu,meta --report r.json", dir.path());
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  const auto report = testing::read_report_file(dir.file("r.json"));
  std::set<std::string> inputs;
  for (const auto& result : report["results"]) inputs.insert(result["input"].get<std::string>());
  EXPECT_EQ(inputs.count("file-photo-1x3x12x9"), 1u);
  EXPECT_EQ(inputs.size(), 2u);
  // A broken file stops the run at the field.
  dir.write("broken.png", "no");
  dir.write("bad.json", json({{"cases", {{{"name", "f"}, {"subject", "resize"}, {"inputs", {{{"file", "broken.png"}}}}}}}}).dump());
  const auto bad = run_cli("run --suite bad.json --devices cpu", dir.path());
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("/cases/0/inputs/0/file: "), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("broken.png"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace devparity
