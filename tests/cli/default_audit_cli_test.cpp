// The README's quick start: `devparity run` with no arguments, the default
// suite on `auto`. The audit runs once (8 s; CTest runs each test in its own
// process, so one test) and each property of its report is a function of its
// own, named in the failure by SCOPED_TRACE.

#include "tests/support/schema.h"
#include "tests/support/cli_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace devparity {
namespace {

using nlohmann::json;
using testing::describe;

void passes_with_a_schema_valid_report(const json& report, const std::string& out) {
  EXPECT_NE(out.find("PASSED"), std::string::npos) << out;
  EXPECT_EQ(testing::report_schema_errors(report), std::vector<std::string>{});
  EXPECT_EQ(report["summary"]["failed"], 0);
}

// Every result has a placement check; the reference transforms have no
// findings but the JPEG encoder's declared host hand-overs (notes).
void placement_is_checked_everywhere_and_only_notes_are_found(const json& report) {
  for (const auto& result : report["results"]) {
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
  }
}

void absent_cuda_rows_are_skipped_with_the_reason(const json& report, int cuda) {
  for (const auto& result : report["results"]) {
    const auto device = result["device"].get<std::string>();
    if (device == "cuda:0" && cuda == 0) {
      EXPECT_EQ(result["status"], "skip");
      EXPECT_NE(result["message"].get<std::string>().find("CUDA"), std::string::npos);
    }
    if (device == "cuda:N" && cuda < 2) {
      EXPECT_EQ(result["status"], "skip");
      EXPECT_NE(result["message"].get<std::string>().find("two or more"), std::string::npos);
    }
  }
}

// Without CUDA, auto adds the simulated vdev:0 and vdev:1.
void every_seed_transform_passes_on_every_device_and_dtype(const json& report, int cuda) {
  std::set<std::string> seen;  // subject/device/dtype with a passing row
  for (const auto& result : report["results"]) {
    if (result["status"] != "pass") continue;
    seen.insert(result["subject"].get<std::string>() + "/" + result["device"].get<std::string>() + "/" +
                result["dtype"].get<std::string>());
  }
  const std::vector<const char*> devices = cuda == 0 ? std::vector<const char*>{"cpu", "meta", "vdev:0", "vdev:1"}
                                                       : std::vector<const char*>{"cpu", "meta"};
  for (const char* subject : {"resize", "gaussian_blur2d", "rescale", "planckian_jitter", "gaussian_illumination",
                              "jpeg_codec_differentiable", "jpeg_encode"}) {
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
}

// The gradient check ran and passed for every float row with values: finite
// differences on the reference rows, gradients against them elsewhere.
void gradients_pass_for_every_float_row_with_values(const json& report, int cuda) {
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
  for (const char* subject : {"planckian_jitter", "gaussian_illumination", "jpeg_codec_differentiable", "rescale"}) {
    EXPECT_GT(gradients[std::string(subject) + "/cpu"], 0) << subject;
    if (cuda == 0) {
      EXPECT_GT(gradients[std::string(subject) + "/vdev:1"], 0) << subject;
    }
  }
}

// JPEG encoder rows with values: valid files, the same bytes as the CPU's,
// and the opt-in stress check where the case asks for it.
void jpeg_rows_are_valid_identical_and_stressed(const json& report) {
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
}

TEST(DefaultAudit, RunsWithNoArgumentsAndPassesEverywhere) {
  testing::TempDir dir;
  const auto r = testing::run_cli("run", dir.path());
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto path = dir.file("reports/out/report.json");
  ASSERT_TRUE(std::filesystem::exists(path));
  const auto report = testing::read_report_file(path);
  const int cuda = report["environment"]["cuda_device_count"].get<int>();
  {
    SCOPED_TRACE("PassesWithASchemaValidReport");
    passes_with_a_schema_valid_report(report, r.out);
  }
  {
    SCOPED_TRACE("PlacementIsCheckedEverywhereAndOnlyNotesAreFound");
    placement_is_checked_everywhere_and_only_notes_are_found(report);
  }
  {
    SCOPED_TRACE("AbsentCudaRowsAreSkippedWithTheReason");
    absent_cuda_rows_are_skipped_with_the_reason(report, cuda);
  }
  {
    SCOPED_TRACE("EverySeedTransformPassesOnEveryDeviceAndDtype");
    every_seed_transform_passes_on_every_device_and_dtype(report, cuda);
  }
  {
    SCOPED_TRACE("GradientsPassForEveryFloatRowWithValues");
    gradients_pass_for_every_float_row_with_values(report, cuda);
  }
  {
    SCOPED_TRACE("JpegRowsAreValidIdenticalAndStressed");
    jpeg_rows_are_valid_identical_and_stressed(report);
  }
}

}  // namespace
}  // namespace devparity
