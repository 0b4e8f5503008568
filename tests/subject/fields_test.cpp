// Fields<Config>: one declaration per parameter gives its reading with the
// range check, its writing back and its documentation.
#include "harness/subject/fields.h"

#include "harness/base/error.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

struct Toy : DeclaredFields<Toy> {
  double gain = 0;
  bool clip = true;
  std::pair<double, double> offset{0, 0};
  static void declare(Fields<Toy>& f) {
    f.number("gain", &Toy::gain, std::nullopt, 0.0, 4.0, "number in [0, 4]", "multiplier")
        .boolean("clip", &Toy::clip, true, "clamp to [0, 1]")
        .field({"offset", "[x, y]", "[0.5, 0]", "added"},
               [](ObjectReader& r, Toy& t) {
                 const auto v = r.numbers("offset", 2, -1.0, 1.0);
                 t.offset = v.empty() ? std::make_pair(0.5, 0.0) : std::make_pair(v[0], v[1]);
               },
               [](const Toy& t, nlohmann::json& out) { out["offset"] = {t.offset.first, t.offset.second}; });
  }
};

Toy read(const nlohmann::json& given) {
  ObjectReader r(given);
  auto t = Toy::read(r);
  r.finish();
  return t;
}

TEST(Fields, ReadsDefaultsAndWritesEveryField) {
  const auto t = read({{"gain", 2}, {"offset", {0.25, -0.5}}});
  EXPECT_EQ(t.gain, 2.0);
  EXPECT_TRUE(t.clip);
  nlohmann::json out = nlohmann::json::object();
  t.write(out);
  EXPECT_EQ(out, nlohmann::json({{"gain", 2.0}, {"clip", true}, {"offset", {0.25, -0.5}}}));
  EXPECT_EQ(read(out).offset, std::make_pair(0.25, -0.5));  // written back, read the same
}

TEST(Fields, TheRangeAndTheRequiredFieldAreChecked) {
  try {
    read({{"gain", 5}});
    ADD_FAILURE() << "gain 5 was read";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/gain");
  }
  EXPECT_THROW(read(nlohmann::json::object()), FieldError);         // gain is required
  EXPECT_THROW(read({{"gain", 1}, {"gian", 2}}), FieldError);       // unknown field
}

TEST(Fields, DocsComeFromTheDeclarations) {
  const auto& docs = Toy::fields().docs();
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0].name, "gain");
  EXPECT_EQ(docs[0].default_value, "required");
  EXPECT_EQ(docs[0].type, "number in [0, 4]");
  EXPECT_EQ(docs[1].default_value, "true");
  EXPECT_EQ(docs[2].default_value, "[0.5, 0]");
}

}  // namespace
}  // namespace devparity
