// End-to-end runs of the devparity executable: exit codes, reports, messages.

#include "harness/base/npy.h"
#include "harness/base/png.h"
#include "tests/support/cli.h"
#include "tests/support/schema.h"
#include "tests/support/tools.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>

namespace devparity {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::describe;
using testing::run_cli;
using testing::shell_quote;

class CliTest : public ::testing::Test {
 protected:
  CliResult cli(const std::string& args) { return run_cli(args, dir_.path()); }
  testing::TempDir dir_;
};

TEST_F(CliTest, DefaultAuditPassesAndWritesASchemaValidReport) {
  // README quick start: no arguments, default suite, report in reports/out/.
  const auto r = cli("run");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("PASSED"), std::string::npos) << r.out;
  const auto path = dir_.file("reports/out/report.json");
  ASSERT_TRUE(std::filesystem::exists(path));
  const auto report = json::parse(testing::read_text(path));
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  EXPECT_EQ(report["summary"]["failed"], 0);

  const int cuda = report["environment"]["cuda_device_count"].get<int>();
  std::set<std::string> seen;  // subject/device/dtype with a passing row
  for (const auto& result : report["results"]) {
    const auto device = result["device"].get<std::string>();
    // Every result has a placement check; the reference transforms have no
    // findings but the JPEG encoder's declared host hand-overs (notes).
    bool placement = false;
    for (const auto& check : result["checks"]) {
      if (check["name"] != "placement") continue;
      placement = true;
      for (const auto& f : check["findings"]) {
        EXPECT_EQ(f["severity"], "note") << result["id"] << ": " << f.dump();
        EXPECT_EQ(result["subject"], "jpeg_encode") << result["id"];
      }
    }
    EXPECT_TRUE(placement) << result["id"];
    if (result["status"] == "pass") {
      seen.insert(result["subject"].get<std::string>() + "/" + device + "/" +
                  result["dtype"].get<std::string>());
    }
    if (device == "cuda:0" && cuda == 0) {
      EXPECT_EQ(result["status"], "skip");
      EXPECT_NE(result["message"].get<std::string>().find("CUDA"), std::string::npos);
    }
    if (device == "cuda:N" && cuda < 2) {
      EXPECT_EQ(result["status"], "skip");
      EXPECT_NE(result["message"].get<std::string>().find("two or more"), std::string::npos);
    }
  }
  // Without CUDA, auto adds the simulated vdev:0 and vdev:1.
  const std::vector<const char*> devices =
      cuda == 0 ? std::vector<const char*>{"cpu", "meta", "vdev:0", "vdev:1"}
                : std::vector<const char*>{"cpu", "meta"};
  for (const char* subject : {"resize", "gaussian_blur2d", "rescale", "planckian_jitter",
                              "gaussian_illumination", "jpeg_codec_differentiable", "jpeg_encode"}) {
    for (const char* device : devices) {
      for (const char* dtype : {"uint8", "float32"}) {
        if (std::string(subject) == "jpeg_codec_differentiable" && std::string(dtype) == "uint8") {
          continue;  // float only, as Kornia's
        }
        EXPECT_EQ(seen.count(std::string(subject) + "/" + device + "/" + dtype), 1u)
            << subject << " " << device << " " << dtype;
      }
    }
  }
  // The gradient check ran and passed for every float row with values: finite
  // differences on the reference rows, gradients against them elsewhere.
  std::map<std::string, int> gradients;  // subject/device -> passes
  for (const auto& result : report["results"]) {
    if (result["dtype"] != "float32" || result["status"] == "skip") continue;
    for (const auto& check : result["checks"]) {
      if (check["name"] != "gradient") continue;
      const auto device = result["device"].get<std::string>();
      if (device == "meta") {
        EXPECT_NE(check["status"], "fail") << result["id"] << ": " << check["message"];
        continue;
      }
      // Point operations with flat regions (solarize, posterize) have no gradient.
      if (check["message"] == "the subject is not differentiable") {
        EXPECT_EQ(check["status"], "skip") << result["id"];
        continue;
      }
      // Finite differences mean nothing at NaN and Inf: the reference row skips.
      if (result["input"].get<std::string>().rfind("nonfinite", 0) == 0 && device == "cpu") {
        EXPECT_EQ(check["status"], "skip") << result["id"];
        continue;
      }
      EXPECT_EQ(check["status"], "pass") << result["id"] << ": " << check["message"];
      ++gradients[result["subject"].get<std::string>() + "/" + device];
    }
  }
  // JPEG encoder rows with values: valid files, the same bytes as the CPU's,
  // and the opt-in stress check where the case asks for it.
  int jpeg_rows = 0, stress_rows = 0;
  for (const auto& result : report["results"]) {
    if (result["subject"] != "jpeg_encode" || result["status"] == "skip") continue;
    for (const auto& check : result["checks"]) {
      if (check["name"] == "stress") {
        EXPECT_EQ(check["status"], result["device"] == "meta" ? "skip" : "pass") << check["message"];
        stress_rows += check["status"] == "pass";
      }
      if (check["name"] != "jpeg" || result["device"] == "meta") continue;
      EXPECT_EQ(check["status"], "pass") << result["id"] << ": " << check["message"];
      for (const auto& f : check["stats"]["files"]) {
        EXPECT_EQ(f["verdict"], "valid");
        if (result["device"] != "cpu") {
          EXPECT_EQ(f["identical_to_reference"], true) << result["id"];
        }
      }
      ++jpeg_rows;
    }
  }
  EXPECT_GE(jpeg_rows, 24);
  EXPECT_GE(stress_rows, 1);
  for (const char* subject : {"planckian_jitter", "gaussian_illumination",
                              "jpeg_codec_differentiable", "rescale"}) {
    EXPECT_GT(gradients[std::string(subject) + "/cpu"], 0) << subject;
    if (cuda == 0) {
      EXPECT_GT(gradients[std::string(subject) + "/vdev:1"], 0) << subject;
    }
  }
}

TEST_F(CliTest, VdevFaultSuiteIsCaughtOnTheSecondIndex) {
  const auto suite = testing::source_path("tests/faults/vdev_faults.json");
  const auto r = run_cli("run --suite " + shell_quote(suite) + " --devices cpu,vdev:1,meta --report r.json",
                         dir_.path(), DEVPARITY_FAULTS_BINARY);
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_NE(r.out.find("vdev:1 (simulated)"), std::string::npos) << r.out;
  const auto report = json::parse(testing::read_text(dir_.file("r.json")));
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  std::set<std::string> mismatches;  // case: op (devices)
  for (const auto& result : report["results"]) {
    const auto name = result["case"].get<std::string>();
    const bool clean = name.size() > 6 && name.substr(name.size() - 6) == "_clean";
    // Faults fail on vdev:1; the plain-member table also on meta (it is on the CPU).
    const bool expect_fail = !clean && (result["device"] == "vdev:1" ||
                                        (name == "jitter_plain_table" && result["device"] == "meta"));
    EXPECT_EQ(result["status"] == "fail", expect_fail) << result["id"] << ": " << result["message"];
    for (const auto& check : result["checks"]) {
      if (check["name"] != "placement") continue;
      for (const auto& f : check["findings"]) {
        if (f["kind"] == "device_mismatch_error") {
          mismatches.insert(name + ": " + f["op"].get<std::string>() + " (" +
                            f["device"].get<std::string>() + ")");
        }
      }
    }
  }
  EXPECT_EQ(mismatches, (std::set<std::string>{
                            "jitter_current_device: aten::index.Tensor (vdev:1 and vdev:0)",
                            "offset_device_type: aten::add.Tensor (vdev:1 and vdev:0)",
                            "jitter_plain_table: aten::index.Tensor (vdev:1 and cpu)",
                            "jitter_plain_table: aten::index.Tensor (meta and cpu)",
                            "state_device_type_move: aten::mul.Tensor (vdev:1 and vdev:0)"}));
  // The report says these devices are simulated and what that leaves out.
  for (const auto& d : report["environment"]["devices"]) {
    if (d["kind"] == "vdev") {
      EXPECT_TRUE(d["simulated"].get<bool>());
      EXPECT_NE(d["model"].get<std::string>().find("not modelled"), std::string::npos);
    }
  }
}

TEST_F(CliTest, ReportIdsAreStableAcrossRuns) {
  ASSERT_EQ(cli("run --devices cpu --report a.json -q").exit_code, 0);
  ASSERT_EQ(cli("run --devices cpu --report b.json -q").exit_code, 0);
  const auto a = json::parse(testing::read_text(dir_.file("a.json")));
  const auto b = json::parse(testing::read_text(dir_.file("b.json")));
  ASSERT_EQ(a["results"].size(), b["results"].size());
  for (size_t i = 0; i < a["results"].size(); ++i) {
    EXPECT_EQ(a["results"][i]["id"], b["results"][i]["id"]);
    EXPECT_EQ(a["results"][i]["seed"], b["results"][i]["seed"]);
  }
}

TEST_F(CliTest, UnknownDeviceIsAUsageErrorNamingIt) {
  const auto r = cli("run --devices gpu");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("'gpu'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("reports/out/report.json")));
}

TEST_F(CliTest, MissingSuiteIsAnInputErrorNamingThePath) {
  const auto r = cli("run --suite no/such/suite.json");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("no/such/suite.json"), std::string::npos) << r.err;
}

TEST_F(CliTest, BadCaseFileSaysWhereAndWhat) {
  dir_.write("bad.json", "{\"cases\": [\n  {\"name\": \"a\", \"subject\": \"resize\",\n"
                         "   \"params\": {\"size\": [5, 5], \"interpolation\": \"cubic\"}}]}\n");
  const auto r = cli("run --suite bad.json");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("bad.json:3:48: /cases/0/params/interpolation: expected one of"),
            std::string::npos) << r.err;
}

TEST_F(CliTest, OtherUsageErrors) {
  for (const std::string args : {"run --dtypes int4", "run --filter 'nothing*'", "frobnicate", "",
                                 "run --color sometimes", "run --seed -3", "run --interleavings 2",
                                 "run --vdev-async --interleavings 0"}) {
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << describe(r);
  }
  EXPECT_NE(cli("run --filter 'nothing*'").err.find("no trials selected"), std::string::npos);
  // Numbers in words, never a saturated seed or a 309-digit range (issue 36).
  for (const auto& [args, said] : std::vector<std::pair<std::string, std::string>>{
           {"run --timeout-s nan", "--timeout-s: expected a number of seconds above 0, got 'nan'"},
           {"run --timeout-s 0", "--timeout-s: expected a number of seconds above 0, got '0'"},
           {"run --seed 18446744073709551616", "--seed: expected a whole number from 0 to 18446744073709551615"},
           {"apply resize --input x.npy --output y.npy --seed 99999999999999999999", "--seed: expected a whole number"},
           // The name promises the format: never .npy bytes under a .jpg name.
           {"apply resize --input x.npy --output y.jpg", "--output y.jpg: resize writes a tensor, as .npy; name a .npy file"},
           {"apply resize --input x.npy --output y.png", "--output y.png: resize writes a tensor"},
           {"apply jpeg_encode --input x.npy --output y.png", "--output y.png: jpeg_encode writes JPEG bytes"},
           {"apply resize --input x.npy --output ./x.npy", "--output ./x.npy is also an input (x.npy)"}}) {
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << describe(r);
    EXPECT_NE(r.err.find(said), std::string::npos) << args << "\n" << describe(r);
  }
  // A bad value from the environment names its variable.
  ::setenv("DEVPARITY_DEVICES", "garbage", 1);
  const auto env = cli("run --report r.json");
  ::unsetenv("DEVPARITY_DEVICES");
  EXPECT_EQ(env.exit_code, 2) << describe(env);
  EXPECT_NE(env.err.find("DEVPARITY_DEVICES='garbage' (from the environment): unknown device 'garbage'"),
            std::string::npos) << describe(env);
  EXPECT_NE(cli("run --interleavings 2").err.find("--interleavings 2: only the asynchronous vdev has interleavings; "
                                                  "add --vdev-async"),
            std::string::npos);
}

TEST_F(CliTest, FailingRunExitsOne) {
  // Nearest against bilinear: the parity check fails.
  dir_.write("fail.json", json({{"cases",
                                 {{{"name", "f"}, {"subject", "resize"},
                                   {"params", {{"size", {9, 9}}, {"interpolation", "nearest"}}},
                                   {"reference", {{"params", {{"interpolation", "bilinear"}}}}},
                                   {"dtypes", {"float32"}}}}}})
                                  .dump());
  const auto r = cli("run --suite fail.json --devices cpu --report r.json");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_NE(r.out.find("FAIL  f/resize/float32/cpu/noise-1x3x17x11"), std::string::npos) << r.out;
  const auto report = json::parse(testing::read_text(dir_.file("r.json")));
  EXPECT_EQ(report["summary"]["failed"], 1);
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
}

TEST_F(CliTest, ApplyWritesAnNpyOfTheInputsDtype) {
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

TEST_F(CliTest, ApplyTakesExplicitValuesInsteadOfDraws) {
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

TEST_F(CliTest, JpegCheckGivesOneVerdictPerFile) {
  // A smooth source, its JPEG from the reference encoder, and broken copies.
  const auto y = at::arange(96, at::kFloat).reshape({96, 1}).expand({96, 128});
  const auto x = at::stack({y * 2.0, at::full({96, 128}, 90.0), y + 40.0}, 0).clamp(0, 255).to(at::kByte);
  write_npy(dir_.file("src.npy"), x.unsqueeze(0));
  write_png(dir_.file("src.png"), x);
  const auto enc = cli("apply jpeg_encode --input src.npy --output good.jpg --params '{\"quality\": 90}'");
  ASSERT_EQ(enc.exit_code, 0) << describe(enc);
  const auto good = testing::read_text(dir_.file("good.jpg"));
  dir_.write("cut.jpg", good.substr(0, good.size() * 2 / 3));
  dir_.write("tail.jpg", good + "xx");
  // Another image's valid JPEG: structurally fine, far from this source.
  write_npy(dir_.file("other.npy"), at::randint(0, 256, {1, 3, 96, 128}).to(at::kByte));
  ASSERT_EQ(cli("apply jpeg_encode --input other.npy --output other.jpg --params '{\"quality\": 90}'").exit_code, 0);

  const auto ok = cli("jpeg-check good.jpg --reference src.npy --expect-size 96x128");
  EXPECT_EQ(ok.exit_code, 0) << describe(ok);
  EXPECT_NE(ok.out.find("good.jpg: valid: 128x96, 3 component(s) 4:2:0, baseline"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("quality ~90"), std::string::npos) << ok.out;
  EXPECT_EQ(cli("jpeg-check good.jpg --reference src.png").exit_code, 0);

  const auto bad = cli("jpeg-check good.jpg cut.jpg tail.jpg other.jpg --reference src.png");
  EXPECT_EQ(bad.exit_code, 1) << describe(bad);
  EXPECT_NE(bad.out.find("cut.jpg: corrupt at byte"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("tail.jpg: corrupt at byte " + std::to_string(good.size()) + ": 2 extraneous byte(s) after EOI"),
            std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("other.jpg: noise: decodes to something far from the source"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("4 file(s): 2 corrupt, 1 noise, 1 valid"), std::string::npos) << bad.out;

  const auto mismatch = cli("jpeg-check good.jpg --expect-size 128x96");
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_NE(mismatch.out.find("good.jpg: mismatch: SOF says width 128, expected 96; height 96, expected 128"),
            std::string::npos) << mismatch.out;

  const auto js = cli("jpeg-check good.jpg cut.jpg --json --reference src.npy --min-psnr 20");
  EXPECT_EQ(js.exit_code, 1);
  const auto files = json::parse(js.out);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0]["verdict"], "valid");
  EXPECT_EQ(files[0]["floor_db"], 20.0);
  EXPECT_GT(files[0]["psnr_db"].get<double>(), 30.0);
  EXPECT_EQ(files[1]["verdict"], "corrupt");
  EXPECT_TRUE(files[1].contains("offset"));

  // Unreadable files and bad options are input errors (exit 2), the others still checked.
  const auto missing = cli("jpeg-check good.jpg missing.jpg");
  EXPECT_EQ(missing.exit_code, 2) << describe(missing);
  EXPECT_NE(missing.out.find("missing.jpg: unreadable: cannot open"), std::string::npos) << missing.out;
  EXPECT_EQ(cli("jpeg-check good.jpg --expect-size 96by128").exit_code, 2);
  EXPECT_EQ(cli("jpeg-check good.jpg --reference src.txt").exit_code, 2);
  EXPECT_EQ(cli("jpeg-check").exit_code, 2);
}

TEST_F(CliTest, FourKFramesUnderFourThreadsMatchTheSingleThreadedBytes) {
  // cases/jpeg_stress.json: 3840x2160 through the reference encoder from four threads.
  const auto r = cli("run --suite " + shell_quote(testing::source_path("cases/jpeg_stress.json")) +
                     " --devices cpu --report r.json");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto report = json::parse(testing::read_text(dir_.file("r.json")));
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  ASSERT_EQ(report["results"].size(), 1u);
  bool stress = false;
  for (const auto& check : report["results"][0]["checks"]) {
    if (check["name"] == "stress") {
      stress = true;
      EXPECT_EQ(check["status"], "pass") << check["message"];
      EXPECT_GE(check["stats"]["threads"].get<int>(), 4);
      EXPECT_EQ(check["stats"]["shape"], json({1, 3, 2160, 3840}));
      EXPECT_EQ(check["stats"]["mismatches"], 0);
    }
    if (check["name"] == "jpeg") {
      EXPECT_EQ(check["status"], "pass") << check["message"];
    }
  }
  EXPECT_TRUE(stress);
}

TEST_F(CliTest, JpegFaultSuiteIsCaughtCheckByCheck) {
  const auto suite = testing::source_path("tests/faults/jpeg_faults.json");
  const auto r = run_cli("run --suite " + shell_quote(suite) + " --devices cpu,vdev:1,meta --report r.json",
                         dir_.path(), DEVPARITY_FAULTS_BINARY);
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  const auto report = json::parse(testing::read_text(dir_.file("r.json")));
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  // case -> the check that must fail it, the words of its verdict, and
  // whether only vdev:1 fails (the fault is off the CPU).
  struct Expected {
    std::string check;
    std::vector<std::string> verdicts;  // one of these in the check's message
    bool vdev_only = false;
    int devices = 2;  // failing devices per input: cpu and vdev:1, or one
  };
  const std::map<std::string, Expected> expected = {
      {"truncated", {"jpeg", {"corrupt: "}}},
      {"missing_eoi", {"jpeg", {"corrupt: "}}},
      {"bit_flip", {"jpeg", {"corrupt: ", "noise: "}}},
      {"late_bit_flip", {"jpeg", {"quantized coefficient(s) differ from the reference's"}, true, 1}},
      {"wrong_sof", {"jpeg", {"mismatch"}}},
      {"read_before_write", {"jpeg", {"noise: "}}},
      {"shared_scratch", {"stress", {"differ from"}, false, 1}}};  // a CPU-only case
  std::map<std::string, int> failed_rows;
  int clean_rows = 0;
  for (const auto& result : report["results"]) {
    const auto name = result["case"].get<std::string>();
    const bool clean = name.size() > 6 && name.substr(name.size() - 6) == "_clean";
    const auto device = result["device"].get<std::string>();
    if (clean || device == "meta") {
      // Clean twins pass; meta has no bytes to judge and says so.
      EXPECT_EQ(result["status"], device == "meta" ? result["status"] : json("pass"))
          << result["id"] << ": " << result["message"];
      EXPECT_NE(result["status"], "fail") << result["id"] << ": " << result["message"];
      EXPECT_NE(result["status"], "error") << result["id"] << ": " << result["message"];
      clean_rows += clean ? 1 : 0;
      continue;
    }
    const auto& e = expected.at(name);
    const bool should_fail = !e.vdev_only || device == "vdev:1";
    EXPECT_EQ(result["status"], should_fail ? "fail" : "pass") << result["id"] << ": " << result["message"];
    for (const auto& check : result["checks"]) {
      if (check["name"] != e.check) {
        EXPECT_NE(check["status"], "fail") << result["id"] << ": " << check["name"] << " also failed: " << check["message"];
        continue;
      }
      EXPECT_EQ(check["status"] == "fail", should_fail) << result["id"] << ": " << check["message"];
      if (check["status"] != "fail") continue;
      const auto message = check["message"].get<std::string>();
      bool named = false;
      for (const auto& v : e.verdicts) named = named || message.find(v) != std::string::npos;
      EXPECT_TRUE(named) << result["id"] << ": " << message;
      ++failed_rows[name];
    }
  }
  // Every fault on cpu and vdev:1 (the late flip on vdev:1 alone, the
  // scratch buffer on the CPU alone), for each input.
  for (const auto& [name, e] : expected) {
    EXPECT_GT(failed_rows[name], 0) << name << " was not caught";
    EXPECT_EQ(failed_rows[name] % e.devices, 0) << name << ": cpu and vdev:1 alike";
  }
  EXPECT_GT(clean_rows, 0);
  EXPECT_EQ(report["summary"]["failed"].get<int>(),
            std::accumulate(failed_rows.begin(), failed_rows.end(), 0, [](int n, const auto& kv) { return n + kv.second; }));
}

TEST_F(CliTest, ApplyErrors) {
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

TEST_F(CliTest, HelpForEverySubcommand) {
  for (const std::string sub : {"", "run ", "list ", "apply "}) {
    const auto r = cli(sub + "--help");
    EXPECT_EQ(r.exit_code, 0) << sub << describe(r);
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
  }
  EXPECT_NE(cli("run --help").out.find("--devices"), std::string::npos);
  EXPECT_NE(cli("apply --help").out.find("--params"), std::string::npos);
  EXPECT_NE(cli("--version").out.find("devparity 0."), std::string::npos);
}

TEST_F(CliTest, ListDocumentsTheParameterInterface) {
  const auto r = cli("list --json");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto all = json::parse(r.out);
  std::map<std::string, std::set<std::string>> params;
  for (const auto& t : all["transforms"]) {
    for (const auto& p : t["params"]) params[t["name"]].insert(p["name"].get<std::string>());
  }
  EXPECT_EQ(params["resize"], (std::set<std::string>{"size", "interpolation", "antialias",
                                                      "align_corners", "uint8_strategy"}));
  EXPECT_EQ(params["gaussian_blur2d"], (std::set<std::string>{"kernel_size", "sigma", "border"}));
  // The explicit values that replace sampling (issue 5), beside the draw ranges.
  auto has = [&](const std::string& t, std::set<std::string> names) {
    for (const auto& n : names) EXPECT_EQ(params[t].count(n), 1u) << t << "." << n;
  };
  has("planckian_jitter", {"mode", "idx", "apply", "select_from", "p", "same_on_batch"});
  has("gaussian_illumination", {"gain", "center", "sigma", "sign", "apply", "gain_range",
                                "center_range", "sigma_range", "sign_range"});
  has("jpeg_codec_differentiable", {"quality", "quality_range"});
  has("rescale", {"factor", "interpolation", "antialias", "align_corners"});
  std::map<std::string, json> transforms;
  for (const auto& t : all["transforms"]) transforms[t["name"]] = t;
  EXPECT_EQ(transforms["jpeg_codec_differentiable"]["differentiable"], true);
  EXPECT_EQ(transforms["jpeg_codec_differentiable"]["random"], true);
  EXPECT_EQ(transforms["rescale"]["random"], false);
  std::set<std::string> checks;
  for (const auto& c : all["checks"]) checks.insert(c["name"].get<std::string>());
  EXPECT_EQ(checks, (std::set<std::string>{"parity", "placement", "gradient", "jpeg", "stress"}));
  EXPECT_FALSE(all["suites"].empty());
  EXPECT_EQ(all["devices"][0]["name"], "cpu");
  const auto text = cli("list");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("resize_strategy_cross"), std::string::npos) << text.out;
}

TEST_F(CliTest, PlacementFaultSuiteFailsWithTheFindingsInTheReport) {
  const auto suite = testing::source_path("tests/faults/placement_faults.json");
  const auto r = run_cli("run --suite " + shell_quote(suite) + " --devices cpu,meta --report r.json",
                         dir_.path(), DEVPARITY_FAULTS_BINARY);
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  const auto report = json::parse(testing::read_text(dir_.file("r.json")));
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  // case -> device -> finding kinds (op)
  std::map<std::string, std::map<std::string, std::set<std::string>>> seen;
  for (const auto& result : report["results"]) {
    for (const auto& check : result["checks"]) {
      if (check["name"] != "placement") continue;
      for (const auto& f : check["findings"]) {
        seen[result["case"]][result["device"]].insert(f["kind"].get<std::string>() + " " +
                                                      f["op"].get<std::string>());
      }
    }
  }
  EXPECT_EQ(seen["jitter"]["meta"].count("foreign_device_input aten::index.Tensor"), 1u);
  EXPECT_EQ(seen["illumination"]["cpu"].count("implicit_device_factory aten::linspace"), 1u);
  EXPECT_EQ(seen["kernel"]["cpu"].count("implicit_device_factory aten::arange"), 1u);
  EXPECT_EQ(seen["item"]["cpu"].count("host_sync aten::item"), 1u);
  EXPECT_EQ(seen["cpu_output"]["meta"].count("wrong_device_output "), 1u);
  EXPECT_EQ(seen["state"]["meta"].count("state_off_device "), 1u);
  for (const char* clean : {"jitter_clean", "illumination_clean", "kernel_clean", "item_clean",
                            "cpu_output_clean", "state_clean"}) {
    EXPECT_EQ(seen.count(clean), 0u) << clean << " has findings";
  }
  // Verdicts, not only findings: every clean row passes; each fault fails
  // its placement check on some device (the item fault only warns: it passes).
  std::map<std::string, int> failing;
  for (const auto& result : report["results"]) {
    const auto name = result["case"].get<std::string>();
    if (name.size() > 6 && name.substr(name.size() - 6) == "_clean") {
      EXPECT_EQ(result["status"], "pass") << result["id"] << ": " << result["message"];
    } else if (result["status"] == "fail") {
      ++failing[name];
      bool placement_failed = false;
      for (const auto& check : result["checks"]) {
        placement_failed = placement_failed || (check["name"] == "placement" && check["status"] == "fail");
      }
      EXPECT_TRUE(placement_failed) << result["id"] << ": " << result["message"];
    }
  }
  for (const char* fault : {"jitter", "illumination", "kernel", "cpu_output", "state"}) {
    EXPECT_GT(failing[fault], 0) << fault << " did not fail";
  }
  EXPECT_EQ(failing.count("item"), 0u) << "a host sync is a warning unless --placement strict";
  int total = 0;
  for (const auto& kv : failing) total += kv.second;
  EXPECT_EQ(report["summary"]["failed"].get<int>(), total);
  // The console names the failing trials.
  EXPECT_NE(r.out.find("FAIL  jitter/fault_jitter_plain_table/float32/meta/"), std::string::npos) << r.out;
  // strict: the item fault's warning fails too.
  const auto strict = run_cli("run --suite " + shell_quote(suite) +
                                  " --devices cpu --placement strict --filter 'item/*' --report s.json",
                              dir_.path(), DEVPARITY_FAULTS_BINARY);
  EXPECT_EQ(strict.exit_code, 1) << describe(strict);
  const auto warn = run_cli("run --suite " + shell_quote(suite) +
                                " --devices cpu --filter 'item/*' --report w.json",
                            dir_.path(), DEVPARITY_FAULTS_BINARY);
  EXPECT_EQ(warn.exit_code, 0) << describe(warn);
  const auto off = run_cli("run --suite " + shell_quote(suite) +
                               " --devices cpu --placement off --filter 'illumination/*' --report o.json",
                           dir_.path(), DEVPARITY_FAULTS_BINARY);
  EXPECT_EQ(off.exit_code, 0) << "no tracing, no placement verdict\n" << describe(off);
}

}  // namespace
}  // namespace devparity

namespace devparity {
namespace {

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
  const auto report = json::parse(testing::read_text(dir.file("r.json")));
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
