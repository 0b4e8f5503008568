#include "harness/suite/case.h"

#include "harness/base/error.h"
#include "harness/builtins.h"
#include "harness/device/device.h"
#include "harness/subject/describe.h"
#include "tests/support/schema.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

using nlohmann::json;

class CaseTest : public ::testing::Test {
 protected:
  void SetUp() override { register_builtins(); }

  Suite load(const std::string& text) {
    path_ = dir_.write("suite.json", text);
    return load_suite(path_, DeviceInventory{});
  }

  // Loads `text`, expects an InputError, returns its message.
  std::string error_of(const std::string& text) {
    try {
      load(text);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "loaded without error:\n" << text;
    return "";
  }

  testing::TempDir dir_;
  std::string path_;
};

const char* const kGood = R"({
  "suite": "unit",
  "cases": [
    {
      "name": "r",
      "subject": "resize",
      "params": {"size": [5, 6]},
      "grid": {"interpolation": ["bilinear", "nearest"], "align_corners": [false]},
      "inputs": [{"pattern": "ramp", "shape": [1, 3, 8, 8]}, {"shape": [2, 1, 4, 4]}],
      "dtypes": ["uint8"],
      "devices": ["cpu", "cuda"],
      "reference": {"device": "cpu", "subject": "interpolate"},
      "checks": {"parity": {"atol": 1, "reason": "because"}, "placement": {"mode": "strict"}},
      "seed": 9
    },
    {"name": "b", "subject": "gaussian_blur2d", "params": {"kernel_size": [3, 3], "sigma": [1, 1]}},
    {"name": "j", "subject": "jpeg_codec_differentiable",
     "checks": {"gradient": {"float32": {"rtol": 1e-3, "reason": "soft rounding"}}, "parity": false}},
    {"name": "a", "subject": "gaussian_blur2d", "params": {"kernel_size": [3, 3], "sigma": [1, 1]}, "autocast": true},
    {"name": "a2", "subject": "gaussian_blur2d", "params": {"kernel_size": [3, 3], "sigma": [1, 1]},
     "autocast": "bfloat16", "dtypes": ["float32", "float16"]}
  ]
})";

TEST_F(CaseTest, LoadsEveryField) {
  const auto suite = load(kGood);
  EXPECT_EQ(suite.name, "unit");
  ASSERT_EQ(suite.cases.size(), 5u);
  const auto& c = suite.cases[0];
  EXPECT_EQ(c.name, "r");
  EXPECT_EQ(c.pointer, "/cases/0");
  EXPECT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(c.inputs[0].label(), "ramp-1x3x8x8");
  EXPECT_EQ(c.inputs[1].label(), "noise-2x1x4x4");
  EXPECT_EQ(c.dtypes, std::vector<c10::ScalarType>{c10::ScalarType::Byte});
  EXPECT_EQ(c.devices, (std::vector<std::string>{"cpu", "cuda"}));
  EXPECT_EQ(c.reference.subject, "interpolate");
  EXPECT_TRUE(c.reference.differs());
  EXPECT_EQ(c.checks.at("parity")["atol"], 1);
  EXPECT_EQ(c.checks.at("placement")["mode"], "strict");
  EXPECT_EQ(*c.seed, 9u);
  const auto variants = case_variants(c);
  ASSERT_EQ(variants.size(), 2u);  // grid keys in name order: align_corners, interpolation
  EXPECT_EQ(variants[0].first, "align_corners=false,interpolation=bilinear");
  EXPECT_EQ(variants[1].second["interpolation"], "nearest");
  EXPECT_EQ(variants[1].second["size"], json({5, 6}));
  // Defaults: the subject's dtypes, parity on, one default input.
  const auto& b = suite.cases[1];
  EXPECT_EQ(b.dtypes, kImageDtypes);  // uint8, float16, bfloat16, float32, float64
  EXPECT_EQ(b.checks.count("parity"), 1u);  // every check on by default
  EXPECT_EQ(b.checks.count("placement"), 1u);
  EXPECT_EQ(b.inputs.size(), 1u);
  EXPECT_EQ(case_variants(b).size(), 1u);
  EXPECT_EQ(case_variants(b)[0].first, "");
  // A gradient tolerance, and a check turned off.
  const auto& j = suite.cases[2];
  EXPECT_EQ(j.checks.at("gradient")["float32"]["rtol"], 1e-3);
  EXPECT_EQ(j.checks.count("parity"), 0u);
  EXPECT_FALSE(b.autocast.has_value());
  // Autocast: true is float16, and the dtypes default to float32, the dtype autocast lowers.
  EXPECT_EQ(suite.cases[3].autocast, c10::ScalarType::Half);
  EXPECT_EQ(suite.cases[3].dtypes, std::vector<c10::ScalarType>{c10::ScalarType::Float});
  EXPECT_EQ(suite.cases[4].autocast, c10::ScalarType::BFloat16);
  EXPECT_EQ(suite.cases[4].dtypes, (std::vector<c10::ScalarType>{c10::ScalarType::Float, c10::ScalarType::Half}));
}

TEST_F(CaseTest, TheSchemaAcceptsWhatTheLoaderAccepts) {
  EXPECT_EQ(testing::schema_errors(json::parse(kGood), "cases/schema/case.schema.json"),
            std::vector<std::string>{});
  // Every shipped suite loads and is schema-valid (those that need the
  // example plugin are loaded by the CLI tests, which pass --plugin).
  int suites = 0;
  std::vector<std::string> paths = {testing::source_path("examples/plugin/cases.json")};
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::source_path("cases"))) {
    if (entry.path().extension() == ".json" && entry.path().parent_path().filename() != "schema") {
      paths.push_back(entry.path().string());
    }
  }
  for (const auto& path : paths) {
    const auto doc = load_json_file(path);
    if (doc.value.value("description", "").find("--plugin") == std::string::npos) {
      EXPECT_NO_THROW(load_suite(path, DeviceInventory{})) << path;
    }
    EXPECT_EQ(testing::schema_errors(doc.value, "cases/schema/case.schema.json"),
              std::vector<std::string>{}) << path;
    ++suites;
  }
  EXPECT_GE(suites, 8);
  // And it rejects what the loader rejects.
  for (const char* bad : {
           R"({"cases": [{"name": "a", "subject": "resize", "paramz": {}}]})",
           R"({"cases": [{"name": "a b", "subject": "resize"}]})",
           R"({"cases": [{"name": "a", "subject": "resize", "devices": ["gpu"]}]})",
           R"({"cases": [{"name": "a", "subject": "resize", "checks": {"parity": {"atol": 1}}}]})",
           R"({"cases": [{"name": "a", "subject": "rescale", "params": {"factor": 2}, "checks": {"gradient": {"rtol": 1}}}]})",
           R"({"cases": [{"name": "a", "subject": "resize", "checks": {"gradiant": true}}]})",
           R"({"cases": [{"name": "a", "subject": "resize", "inputs": [{"shape": [3, 4, 4]}]}]})",
           R"({"cases": []})",
           R"({"cases": [{"name": "a", "subject": "resize", "checks": {"placement": {"mode": "paranoid"}}}]})",
           R"({"cases": [{"name": "a", "subject": {"torchscript": "m.pt", "methd": "forward"}}]})",
           R"({"cases": [{"name": "a", "subject": {"onnx": "m.onnx"}}]})",
           R"({"cases": [{"name": "a", "subject": "resize", "inputs": [{"file": "x.png", "shape": [1, 3, 4, 4]}]}]})",
           R"({"cases": [{"name": "a", "subject": "rescale", "params": {"factor": 2}, "autocast": "float32"}]})",
       }) {
    EXPECT_FALSE(testing::schema_errors(json::parse(bad), "cases/schema/case.schema.json").empty())
        << bad;
    EXPECT_THROW(load(bad), InputError) << bad;
  }
}

TEST_F(CaseTest, ErrorsCarryFileLineColumnAndPointer) {
  struct Bad {
    std::string text;
    std::string where;    // "line:column"
    std::string pointer;
    std::string words;    // part of the message
  };
  const std::vector<Bad> cases = {
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"paramz\": {}}]}", "1:47",
       "/cases/0/paramz", "unknown field 'paramz'"},
      {"{\"cases\": [{\"name\": \"a\",\n \"subject\": \"resise\"}]}", "2:13", "/cases/0/subject",
       "unknown subject 'resise'"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\",\n \"params\": {\"size\": [5, 0]}}]}",
       "2:25", "/cases/0/params/size/1", "expected an integer in [1, 65536], got 0"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]},\n"
       " \"grid\": {\"interpolation\": [\"bilinear\", \"cubic\"]}}]}",
       "2:41", "/cases/0/grid/interpolation/1", "expected one of"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5],\n"
       " \"interpolation\": \"nearest\", \"antialias\": true}}]}",
       "2:43", "/cases/0/params/antialias", "antialias is only supported"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]},\n"
       " \"checks\": {\"parity\": {\"atol\": 1}}}]}",
       "2:23", "/cases/0/checks/parity", "needs a non-empty \"reason\""},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]},\n"
       " \"checks\": {\"parity\": true, \"jpg\": true}}]}",
       "2:29", "/cases/0/checks/jpg", "unknown check 'jpg'"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]},\n"
       " \"checks\": {\"parity\": true, \"jpeg\": true}}]}",
       "2:29", "/cases/0/checks/jpeg", "the jpeg check does not apply to resize (image output)"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]},\n"
       " \"dtypes\": [\"uint8\", \"int64\"]}]}",
       "2:22", "/cases/0/dtypes/1", "does not support int64"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]},\n"
       " \"devices\": [\"gpu\"]}]}",
       "2:14", "/cases/0/devices/0", "unknown device 'gpu'"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]},\n"
       " \"reference\": {\"device\": \"meta\"}}]}",
       "2:26", "/cases/0/reference/device", "must compute values"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]},\n"
       " \"inputs\": [{\"shape\": [3, 4, 4]}]}]}",
       "2:23", "/cases/0/inputs/0/shape", "NCHW shape"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"gaussian_blur2d\",\n"
       " \"params\": {\"kernel_size\": [3, 3], \"sigma\": [[1, 1], [1, 1], [1, 1]]}}]}",
       "2:45", "/cases/0/params/sigma", "3 per-sample sigmas for a batch of 1"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]}},\n"
       "  {\"name\": \"a\", \"subject\": \"resize\", \"params\": {\"size\": [5, 5]}}]}",
       "2:12", "/cases/1/name", "duplicate case name 'a'"},
      {"{\"cases\": [{\"name\": \"a b\", \"subject\": \"resize\"}]}", "1:21", "/cases/0/name",
       "must be an identifier"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"rescale\", \"params\": {\"factor\": 2},\n"
       " \"autocast\": \"int8\"}]}",
       "2:14", "/cases/0/autocast", "expected true, false, \"float16\" or \"bfloat16\", got \"int8\""},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"rescale\", \"params\": {\"factor\": 2},\n"
       " \"autocast\": true, \"dtypes\": [\"float32\", \"uint8\"]}]}",
       "2:42", "/cases/0/dtypes/1", "uint8 under autocast"},
      {"{\"cases\": []}", "1:11", "/cases", "non-empty array"},
      {"{\"cases\": [{\"name\": \"a\", \"subject\": \"resize\"}]}", "1:12", "/cases/0/params",
       "missing required field 'size'"},
  };
  for (const auto& bad : cases) {
    const auto message = error_of(bad.text);
    EXPECT_EQ(message.rfind(path_ + ":" + bad.where + ": " + bad.pointer + ": ", 0), 0u)
        << "expected " << bad.where << " " << bad.pointer << "\n got: " << message;
    EXPECT_NE(message.find(bad.words), std::string::npos) << message;
  }
}

TEST_F(CaseTest, MissingAndMalformedFilesNameThePath) {
  try {
    load_suite("/no/such/suite.json", DeviceInventory{});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/suite.json"), std::string::npos);
  }
  const auto message = error_of("{\"cases\": [\n");
  EXPECT_NE(message.find(path_ + ":2:"), std::string::npos) << message;
}

}  // namespace
}  // namespace devparity
