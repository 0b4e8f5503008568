#include "harness/suite/inputs.h"

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/base/png.h"
#include "harness/subject/seeded_noise.h"
#include "tests/support/schema.h"
#include "tests/support/temp_dir.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

InputRecipe recipe(const std::string& pattern, std::vector<int64_t> shape = {2, 3, 17, 11}) {
  InputRecipe r;
  r.pattern = pattern;
  r.shape = std::move(shape);
  return r;
}

TEST(InputTest, SameSeedSameBytesDifferentSeedDifferentBytes) {
  for (auto dtype : {at::kByte, at::kFloat}) {
    const auto a = make_input(recipe("noise"), dtype, 42);
    const auto b = make_input(recipe("noise"), dtype, 42);
    const auto c = make_input(recipe("noise"), dtype, 43);
    EXPECT_TRUE(at::equal(a, b));
    EXPECT_FALSE(at::equal(a, c));
    EXPECT_EQ(a.device().type(), c10::DeviceType::CPU);
    EXPECT_TRUE(a.is_contiguous());
    EXPECT_EQ(a.scalar_type(), dtype);
  }
}

// The noise pattern's bytes are seeded_noise()'s, fixed across releases
// (tests/subject/seeded_noise_test.cpp).
TEST(InputTest, NoiseIsSeededNoise) {
  for (const auto dtype : {at::kByte, at::kFloat, at::kDouble}) {
    EXPECT_TRUE(at::equal(make_input(recipe("noise"), dtype, 3), seeded_noise({2, 3, 17, 11}, dtype, 3)));
  }
}

TEST(InputTest, RangesPerDtype) {
  for (const auto& pattern : input_patterns()) {
    const auto u8 = make_input(recipe(pattern), at::kByte, 7);
    auto f32 = make_input(recipe(pattern), at::kFloat, 7);
    if (pattern == "nonfinite") {
      // NaN, +Inf and -Inf at fixed positions, finite noise elsewhere.
      const auto flat = f32.view({-1});
      EXPECT_TRUE(std::isnan(flat[3].item<float>()));
      EXPECT_EQ(flat[5].item<float>(), std::numeric_limits<float>::infinity());
      EXPECT_EQ(flat[8].item<float>(), -std::numeric_limits<float>::infinity());
      EXPECT_TRUE(at::equal(u8, make_input(recipe("noise"), at::kByte, 7)));
      f32 = at::where(at::isfinite(f32), f32, at::zeros_like(f32));
    }
    EXPECT_GE(f32.min().item<float>(), 0.0f) << pattern;
    EXPECT_LE(f32.max().item<float>(), 1.0f) << pattern;
    if (pattern != "constant") {
      EXPECT_GT(f32.max().item<float>() - f32.min().item<float>(), 0.5f) << pattern;
      EXPECT_GT(u8.max().item<int>() - u8.min().item<int>(), 127) << pattern;
    }
  }
}

TEST(InputTest, PatternsHaveTheirShape) {
  auto board = recipe("checkerboard", {1, 1, 4, 4});
  board.cell = 2;
  const auto b = make_input(board, at::kByte, 0);
  EXPECT_EQ(b[0][0][0][0].item<int>(), 0);
  EXPECT_EQ(b[0][0][0][2].item<int>(), 255);
  EXPECT_EQ(b[0][0][2][2].item<int>(), 0);
  auto constant = recipe("constant", {1, 2, 3, 3});
  constant.value = 0.25;
  const auto c = make_input(constant, at::kFloat, 0);
  EXPECT_TRUE(at::all(c == 0.25f).item<bool>());
  EXPECT_EQ(make_input(constant, at::kByte, 0)[0][0][0][0].item<int>(), 64);  // round(63.75)
  const auto ramp = make_input(recipe("ramp", {1, 1, 3, 5}), at::kFloat, 0);
  EXPECT_FLOAT_EQ(ramp[0][0][0][0].item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(ramp[0][0][2][4].item<float>(), 1.0f);
  const auto edges = make_input(recipe("edges", {1, 1, 8, 8}), at::kFloat, 0);
  // Hard edges: only the four levels occur, and neighbours jump between them.
  const auto levels = std::get<0>(at::_unique(edges));
  EXPECT_EQ(levels.numel(), 4);
  const auto steps = (edges.narrow(3, 1, 7) - edges.narrow(3, 0, 7)).abs();
  EXPECT_GE(steps.max().item<float>(), 0.25f);
}

TEST(InputTest, BadRecipesAreInputErrors) {
  EXPECT_THROW(make_input(recipe("plasma"), at::kFloat, 0), InputError);
  EXPECT_THROW(make_input(recipe("noise", {1, 0, 4, 4}), at::kFloat, 0), InputError);
  EXPECT_THROW(make_input(recipe("noise", {1, 3, 4, -4}), at::kFloat, 0), InputError);
  // An empty batch is an input; an empty image is not.
  EXPECT_EQ(make_input(recipe("noise", {0, 3, 4, 4}), at::kFloat, 0).sizes(), (std::vector<int64_t>{0, 3, 4, 4}));
  EXPECT_THROW(make_input(recipe("noise", {4}), at::kFloat, 0), InputError);
  EXPECT_THROW(make_input(recipe("noise"), at::kLong, 0), InputError);
  auto board = recipe("checkerboard");
  board.cell = 0;
  EXPECT_THROW(make_input(board, at::kFloat, 0), InputError);
}

TEST(InputTest, ImageFilesAreInputsWithTheirOwnShape) {
  testing::TempDir dir;
  const auto chw = at::randint(0, 256, {3, 6, 5}).to(at::kByte);
  write_png(dir.file("x.png"), chw);
  const nlohmann::json given = {{"file", "x.png"}};
  ObjectReader reader(given, "/inputs/0");
  const auto r = read_input_recipe(reader, dir.path());
  EXPECT_EQ(r.shape, (std::vector<int64_t>{1, 3, 6, 5}));
  EXPECT_EQ(r.label(), "file-x-1x3x6x5");
  EXPECT_TRUE(at::equal(make_input(r, at::kByte, 0), chw.unsqueeze(0)));
  EXPECT_TRUE(at::allclose(make_input(r, at::kFloat, 0), chw.unsqueeze(0).to(at::kFloat) / 255.0));
  // JPEG through the strict decoder.
  const nlohmann::json jpeg = {{"file", testing::source_path("tests/fuzz/corpus/colour_444_optimized.jpg")}};
  ObjectReader jr(jpeg, "/inputs/1");
  const auto j = read_input_recipe(jr, "");
  EXPECT_EQ(j.shape.size(), 4u);
  EXPECT_EQ(j.shape[1], 3);
  EXPECT_EQ(make_input(j, at::kByte, 0).sizes(), c10::IntArrayRef(j.shape));
}

TEST(InputTest, BadImageFilesAreFieldErrors) {
  testing::TempDir dir;
  dir.write("bad.png", "not a png");
  for (const nlohmann::json& given :
       {nlohmann::json{{"file", "missing.png"}}, nlohmann::json{{"file", "bad.png"}},
        nlohmann::json{{"file", "x.gif"}},
        nlohmann::json{{"file", testing::source_path("tests/fuzz/corpus/truncated.jpg")}},
        nlohmann::json{{"file", "bad.png"}, {"shape", {1, 3, 4, 4}}}}) {
    ObjectReader reader(given, "/inputs/0");
    try {
      (void)read_input_recipe(reader, dir.path());
      ADD_FAILURE() << given.dump();
    } catch (const FieldError& e) {
      EXPECT_EQ(e.pointer().rfind("/inputs/0/", 0), 0u) << e.pointer();
    }
  }
}

// Below the suite a recipe is an InputSource: the same bytes as make_input(),
// and more images like it at another shape where it is a pattern.
TEST(InputTest, ARecipeAsAnInputSource) {
  const auto noise = recipe("noise", {1, 3, 5, 4});
  const auto source = input_source(noise);
  EXPECT_TRUE(at::equal(source->make(at::kFloat, 9), make_input(noise, at::kFloat, 9)));
  const auto larger = source->with_shape({2, 3, 8, 8});
  EXPECT_EQ(larger->make(at::kByte, 9).sizes(), (c10::IntArrayRef{2, 3, 8, 8}));
  EXPECT_TRUE(at::equal(source->make(at::kByte, 9), make_input(noise, at::kByte, 9)));  // itself unchanged

  testing::TempDir dir;
  const auto chw = at::randint(0, 256, {3, 6, 5}).to(at::kByte);
  write_png(dir.file("x.png"), chw);
  const nlohmann::json given = {{"file", "x.png"}};
  ObjectReader reader(given, "/inputs/0");
  const auto file = declaration_context(dir.path()).read_input(reader);
  // A file has its own shape, whatever is asked.
  EXPECT_TRUE(at::equal(file->with_shape({2, 3, 8, 8})->make(at::kByte, 0), chw.unsqueeze(0)));
}

}  // namespace
}  // namespace devparity
