// Describe: every field of a description from one expression, parameters in
// the order given, continued by a base class; Described answers info().

#include "harness/subject/describe.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

TEST(Describe, FillsEveryFieldInOneExpression) {
  const TransformInfo info = Describe("blur", "filter", "a blur")
                                 .param("k", "integer", "3", "kernel")
                                 .params({{"a", "number", "0", ""}, {"b", "bool", "false", ""}})
                                 .dtypes(kFloatDtypes)
                                 .random()
                                 .differentiable()
                                 .not_on_meta("no meta kernel")
                                 .jpeg_output();
  EXPECT_EQ(info.name, "blur");
  EXPECT_EQ(info.family, "filter");
  EXPECT_EQ(info.description, "a blur");
  ASSERT_EQ(info.params.size(), 3u);
  EXPECT_EQ(info.params[0].name, "k");
  EXPECT_EQ(info.params[0].default_value, "3");
  EXPECT_EQ(info.params[2].name, "b");
  EXPECT_EQ(info.dtypes, kFloatDtypes);
  EXPECT_TRUE(info.random);
  EXPECT_TRUE(info.differentiable);
  EXPECT_FALSE(info.meta);
  EXPECT_EQ(info.meta_note, "no meta kernel");
  EXPECT_EQ(info.output, "jpeg");
}

TEST(Describe, DefaultsAreThoseOfTransformInfo) {
  const TransformInfo info = Describe("id", "color", "identity");
  const TransformInfo plain;
  EXPECT_EQ(info.random, plain.random);
  EXPECT_EQ(info.differentiable, plain.differentiable);
  EXPECT_EQ(info.meta, plain.meta);
  EXPECT_TRUE(info.meta_note.empty());
  EXPECT_EQ(info.output, "image");
  EXPECT_TRUE(info.params.empty());
  EXPECT_TRUE(info.dtypes.empty());
  // meta_note alone keeps the transform on meta (only some parameters fail there).
  EXPECT_TRUE(TransformInfo(Describe("x", "y", "z").meta_note("not area")).meta);
}

TEST(Describe, ABaseContinuesWhatItsSubclassBegan) {
  const TransformInfo begun = Describe("enc", "codec", "an encoder").param("q", "integer", "75", "");
  const TransformInfo done = Describe(begun).param("seed", "integer", "drawn", "").random();
  ASSERT_EQ(done.params.size(), 2u);
  EXPECT_EQ(done.params[0].name, "q");
  EXPECT_EQ(done.params[1].name, "seed");
  EXPECT_EQ(done.name, "enc");
  EXPECT_TRUE(done.random);
}

class Identity final : public Described<Transform> {
 public:
  Identity() : Described(Describe("identity", "test", "returns its input").dtypes(kImageDtypes)) {}
  nlohmann::json sample(const nlohmann::json&, c10::IntArrayRef, at::Generator&) const override { return {}; }
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override { return x; }
};

TEST(Described, AnswersInfoWithItsDescription) {
  const Identity t;
  EXPECT_EQ(t.info().name, "identity");
  EXPECT_EQ(t.info().dtypes, kImageDtypes);
}

}  // namespace
}  // namespace devparity
