// The executable's contract with its caller: exit codes, usage and input
// errors that name what is wrong, help and the parameter interface of `list`.

#include "tests/support/schema.h"
#include "tests/support/cli_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>

namespace devparity {
namespace {

using nlohmann::json;
using testing::describe;

class CliUsage : public testing::CliFixture {};

TEST_F(CliUsage, UnknownDeviceIsAUsageErrorNamingIt) {
  const auto r = cli("run --devices gpu");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("'gpu'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("reports/out/report.json")));
}

TEST_F(CliUsage, MissingSuiteIsAnInputErrorNamingThePath) {
  const auto r = cli("run --suite no/such/suite.json");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("no/such/suite.json"), std::string::npos) << r.err;
}

TEST_F(CliUsage, BadCaseFileSaysWhereAndWhat) {
  dir_.write("bad.json", "{\"cases\": [\n  {\"name\": \"a\", \"subject\": \"resize\",\n"
                         "   \"params\": {\"size\": [5, 5], \"interpolation\": \"cubic\"}}]}\n");
  const auto r = cli("run --suite bad.json");
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("bad.json:3:48: /cases/0/params/interpolation: expected one of"),
            std::string::npos) << r.err;
}

TEST_F(CliUsage, OtherUsageErrors) {
  for (const std::string args : {"run --dtypes int4", "run --filter 'nothing*'", "frobnicate", "",
                                 "run --color sometimes", "run --seed -3", "run --vdev-sync --interleavings 2",
                                 "run --interleavings 0"}) {
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << describe(r);
  }
  EXPECT_NE(cli("run --filter 'nothing*'").err.find("no trials selected"), std::string::npos);
  // Numbers in words, never a saturated seed or a 309-digit range (issue 36).
  for (const auto& [args, said] : std::vector<std::pair<std::string, std::string>>{
           {"run --timeout-s nan", "--timeout-s: expected a number of seconds above 0, up to 2592000 (30 days), got 'nan'"},
           {"run --timeout-s 0", "--timeout-s: expected a number of seconds above 0, up to 2592000 (30 days), got '0'"},
           {"run --seed 18446744073709551616", "--seed: expected a whole number from 0 to 18446744073709551615"},
           {"apply resize --input x.npy --output y.npy --seed 99999999999999999999", "--seed: expected a whole number"},
           // The name promises the format: never .npy bytes under a .jpg name.
           {"apply resize --input x.npy --output y.jpg", "--output y.jpg: resize writes a tensor, as .npy; name a .npy file"},
           {"apply resize --input x.npy --output y.png", "--output y.png: resize writes a tensor"},
           {"apply jpeg_encode --input x.npy --output y.png", "--output y.png: jpeg_encode writes JPEG bytes"},
           {"apply resize --input x.npy --output ./x.npy", "--output ./x.npy is also an input (x.npy)"},
           // A cap on the plan, refused before anything runs (issue 41).
           {"run --devices cpu --max-trials 10 --report r.json",
            "trials, more than --max-trials 10: narrow it with --filter"},
           {"run --progress-s -1", "--progress-s"},
           // Issue 56: nan or 1e300 made the progress thread spin, deaf to SIGTERM, writing 40 GB.
           {"run --progress-s nan", "--progress-s: expected 0 (no progress lines) or a number of seconds up to"},
           {"run --progress-s inf", "--progress-s: expected 0"},
           {"run --progress-s 1e300", "got '1e300'"},
           {"run --progress-s 86401", "up to 86400 (a day)"}}) {
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
  EXPECT_NE(cli("run --vdev-sync --interleavings 2")
                .err.find("--interleavings 2: only the asynchronous vdev has interleavings; drop --vdev-sync"),
            std::string::npos);
}

// A grid that takes seconds to check and plan says how far it is before the
// first trial, off a terminal (issue 41: one printed nothing for 90 s); -q
// and a small suite print no such line.
TEST_F(CliUsage, AHugeGridShowsProgressWhileItIsCheckedAndPlanned) {
  json sizes = json::array(), inputs = json::array();
  for (int w = 1; w <= 100; ++w) sizes.push_back({4, w});
  for (int w = 0; w < 400; ++w) inputs.push_back({{"pattern", "noise"}, {"shape", {1, 3, 8, 8 + w}}});
  dir_.write("grid.json", json({{"cases", {{{"name", "grid"}, {"subject", "resize"},
                                            {"grid", {{"size", sizes}, {"interpolation", {"nearest", "bilinear"}}}},
                                            {"inputs", inputs}, {"dtypes", {"float32"}}}}}})
                              .dump());
  const std::string run = "run --suite grid.json --devices cpu --max-trials 1 --report r.json --progress-s 0.05";
  const auto r = cli(run);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.out.find("progress: checking grid.json, case grid: "), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find(" of 80000 variant-inputs ("), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("progress: making the plan, case grid: "), std::string::npos) << describe(r);
  EXPECT_EQ(cli(run + " -q").out.find("progress:"), std::string::npos);
}

// Issue 56: a tiny period is the floor (0.05 s), not a line per microsecond; the twin, the floor
// itself, is taken as given.
TEST_F(CliUsage, ATinyProgressPeriodIsTheFloor) {
  json sizes = json::array();
  for (int w = 1; w <= 100; ++w) sizes.push_back({4, w});
  dir_.write("grid.json", json({{"cases", {{{"name", "grid"}, {"subject", "resize"}, {"grid", {{"size", sizes}}},
                                            {"dtypes", {"float32"}}}}}})
                              .dump());
  for (const char* period : {"1e-300", "0.05"}) {
    const auto started = std::chrono::steady_clock::now();
    const auto r = cli(std::string("run --suite grid.json --devices cpu --report r.json --progress-s ") + period);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(r.exit_code, 0) << period << "\n" << describe(r);
    size_t lines = 0;
    for (size_t at = r.out.find("progress:"); at != std::string::npos; at = r.out.find("progress:", at + 1)) ++lines;
    EXPECT_LE(static_cast<double>(lines), seconds / 0.05 + 10) << period << ": " << lines << " lines in " << seconds << " s";
  }
}

TEST_F(CliUsage, FailingRunExitsOne) {
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
  const auto report = testing::read_report_file(dir_.file("r.json"));
  EXPECT_EQ(report["summary"]["failed"], 1);
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
}

TEST_F(CliUsage, ReportIdsAreStableAcrossRuns) {
  ASSERT_EQ(cli("run --devices cpu --report a.json -q").exit_code, 0);
  ASSERT_EQ(cli("run --devices cpu --report b.json -q").exit_code, 0);
  const auto a = testing::read_report_file(dir_.file("a.json"));
  const auto b = testing::read_report_file(dir_.file("b.json"));
  ASSERT_EQ(a["results"].size(), b["results"].size());
  for (size_t i = 0; i < a["results"].size(); ++i) {
    EXPECT_EQ(a["results"][i]["id"], b["results"][i]["id"]);
    EXPECT_EQ(a["results"][i]["seed"], b["results"][i]["seed"]);
  }
}

TEST_F(CliUsage, HelpForEverySubcommand) {
  for (const std::string sub : {"", "run ", "list ", "apply "}) {
    const auto r = cli(sub + "--help");
    EXPECT_EQ(r.exit_code, 0) << sub << describe(r);
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
  }
  EXPECT_NE(cli("run --help").out.find("--devices"), std::string::npos);
  EXPECT_NE(cli("apply --help").out.find("--params"), std::string::npos);
  EXPECT_NE(cli("--version").out.find("devparity 0."), std::string::npos);
}

TEST_F(CliUsage, ListDocumentsTheParameterInterface) {
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

}  // namespace
}  // namespace devparity
