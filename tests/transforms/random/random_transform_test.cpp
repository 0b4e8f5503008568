// RandomTransform<Settings>: one sample() for every random transform whose
// settings are declared fields: the settings read, checked and written back,
// the subclass's draws beside them, unread fields refused, docs in order.

#include "harness/transforms/random/random_transform.h"

#include "harness/base/error.h"
#include "harness/subject/fields.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

namespace devparity {
namespace {

struct Spread : DeclaredFields<Spread> {
  double width = 0.5;
  static void declare(Fields<Spread>& f) {
    f.number("width", &Spread::width, 0.5, 0.0, 1.0, "number in [0, 1]", "draws ~ U(-width, width)");
  }
  void check(c10::IntArrayRef shape) const {
    if (shape[1] != 1) throw InputError("spread takes one channel");
  }
};

class Jiggle final : public RandomTransform<Spread> {
 public:
  Jiggle()
      : RandomTransform(Describe("jiggle", "test", "adds a drawn offset").param("offset", "number", "drawn", "the offset")
                            .dtypes({at::kFloat})) {}
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p) const override { return x + p.at("offset").get<double>(); }

 private:
  void draw(const Spread& s, ObjectReader& given, c10::IntArrayRef, at::Generator& gen,
            nlohmann::json& out) const override {
    const double u = at::rand({1}, gen).item<double>();
    out["offset"] = given.number("offset", (2 * u - 1) * s.width, -1.0, 1.0);
  }
};

nlohmann::json sample(const Jiggle& t, const nlohmann::json& given, std::vector<int64_t> shape = {2, 1, 4, 4}) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(7);
  return t.sample(given, shape, gen);
}

TEST(RandomTransformTest, TheSettingsAreWrittenBesideTheDrawsAndDocumentedFirst) {
  const Jiggle t;
  const auto drawn = sample(t, {{"width", 0.25}});
  EXPECT_EQ(drawn["width"], 0.25);
  EXPECT_LE(std::abs(drawn["offset"].get<double>()), 0.25);
  EXPECT_EQ(sample(t, {{"width", 0.25}}), drawn);  // one seed, one draw
  EXPECT_EQ(sample(t, {{"offset", 0.125}})["offset"], 0.125);  // a given value replaces the draw
  EXPECT_EQ(sample(t, nlohmann::json::object())["width"], 0.5);
  ASSERT_EQ(t.info().params.size(), 2u);
  EXPECT_EQ(t.info().params[0].name, "width");
  EXPECT_EQ(t.info().params[1].name, "offset");
  EXPECT_TRUE(t.info().random);
}

TEST(RandomTransformTest, UnreadFieldsBadSettingsAndInputsAreRefused) {
  const Jiggle t;
  EXPECT_THROW(sample(t, {{"widht", 0.25}}), FieldError);
  EXPECT_THROW(sample(t, {{"width", 2}}), FieldError);
  EXPECT_THROW(sample(t, nlohmann::json::object(), {2, 3, 4, 4}), InputError);  // the settings' check
  EXPECT_THROW(sample(t, nlohmann::json::object(), {4, 4}), InputError);        // not NCHW
}

}  // namespace
}  // namespace devparity
