// The JPEG check end to end: one verdict per file, 4K frames under threads,
// and the JPEG fault suite caught check by check.

#include "harness/base/png.h"
#include "harness/base/npy.h"
#include "tests/support/schema.h"
#include "tests/support/cli_fixture.h"
#include "tests/support/tools.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <numeric>

namespace devparity {
namespace {

using nlohmann::json;
using testing::describe;
using testing::run_cli;
using testing::shell_quote;

class CliJpeg : public testing::CliFixture {};

TEST_F(CliJpeg, JpegCheckGivesOneVerdictPerFile) {
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

TEST_F(CliJpeg, FourKFramesUnderFourThreadsMatchTheSingleThreadedBytes) {
  // cases/jpeg_stress.json: 3840x2160 through the reference encoder from four threads.
  const auto r = cli("run --suite " + shell_quote(testing::source_path("cases/jpeg_stress.json")) +
                     " --devices cpu --report r.json");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto report = testing::read_report_file(dir_.file("r.json"));
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

TEST_F(CliJpeg, JpegFaultSuiteIsCaughtCheckByCheck) {
  const auto suite = testing::source_path("tests/faults/jpeg_faults.json");
  const auto r = run_cli("run --suite " + shell_quote(suite) + " --devices cpu,vdev:1,meta --report r.json",
                         dir_.path(), DEVPARITY_FAULTS_BINARY);
  ASSERT_EQ(r.exit_code, 1) << describe(r);
  const auto report = testing::read_report_file(dir_.file("r.json"));
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

}  // namespace
}  // namespace devparity
