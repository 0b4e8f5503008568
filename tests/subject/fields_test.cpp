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

// `given` read as a whole: every field declared, nothing else.
template <typename Config = Toy>
Config read(const nlohmann::json& given) {
  ObjectReader r(given);
  auto c = Config::read(r);
  r.finish();
  return c;
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

// The typed builders: a pair, an optional pair, a part that reads, writes
// and documents itself, and a field declared apart.
struct Scale {
  double factor = 1;
  static Scale read(ObjectReader& r, double fallback) { return {r.number("factor", fallback, 0.0, 8.0)}; }
  void write(nlohmann::json& out) const { out["factor"] = factor; }
  static std::vector<ParamDoc> docs(double fallback) {
    return {{"factor", "number in [0, 8]", std::to_string(static_cast<int>(fallback)), "zoom"}};
  }
};

struct Bounds {
  const char* name;
  std::pair<double, double> read(ObjectReader& r) const { return r.pair(name, {0, 1}, 0.0, 1.0); }
  void write(nlohmann::json& out, std::pair<double, double> v) const { out[name] = {v.first, v.second}; }
  ParamDoc doc() const { return {name, "[lo, hi] in [0, 1]", "[0, 1]", "a range"}; }
};
const Bounds kBounds{"bounds"};

struct Typed : DeclaredFields<Typed> {
  std::pair<double, double> sigma;
  std::optional<std::pair<double, double>> center;
  Scale scale;
  std::pair<double, double> bounds;
  static void declare(Fields<Typed>& f) {
    f.pair("sigma", &Typed::sigma, {5, 5}, 0.0, 100.0, "number or [sx, sy]", "smoothness")
        .optional_pair("center", &Typed::center, -10.0, 10.0, "[x, y] or null", "null: the middle")
        .part(&Typed::scale, 2.0)
        .declared(kBounds, &Typed::bounds);
  }
};

TEST(Fields, TypedBuildersReadWriteAndDocumentEachField) {
  const auto defaults = read<Typed>(nlohmann::json::object());
  nlohmann::json out = nlohmann::json::object();
  defaults.write(out);
  EXPECT_EQ(out, nlohmann::json({{"sigma", {5.0, 5.0}}, {"center", nullptr}, {"factor", 2.0}, {"bounds", {0.0, 1.0}}}));
  const auto given = read<Typed>({{"sigma", 3}, {"center", {1, -2}}, {"factor", 4}, {"bounds", {0.25, 0.5}}});
  EXPECT_EQ(given.sigma, std::make_pair(3.0, 3.0));  // a number is both
  ASSERT_TRUE(given.center.has_value());
  EXPECT_EQ(*given.center, std::make_pair(1.0, -2.0));
  EXPECT_EQ(given.scale.factor, 4.0);
  EXPECT_EQ(given.bounds, std::make_pair(0.25, 0.5));
  EXPECT_EQ(read<Typed>({{"sigma", {1, 2}}}).sigma, std::make_pair(1.0, 2.0));
  EXPECT_FALSE(read<Typed>({{"center", nullptr}}).center.has_value());
  const auto& docs = Typed::docs();
  ASSERT_EQ(docs.size(), 4u);
  EXPECT_EQ(docs[0].default_value, "[5, 5]");
  EXPECT_EQ(docs[1].default_value, "null");
  EXPECT_EQ(docs[2].name, "factor");
  EXPECT_EQ(docs[2].default_value, "2");
  EXPECT_EQ(docs[3].name, "bounds");
}

TEST(Fields, TypedBuildersCheckRangesAndShapesAtTheField) {
  auto pointer_of = [](const nlohmann::json& given) {
    try {
      read<Typed>(given);
    } catch (const FieldError& e) {
      return e.pointer();
    }
    return std::string("(read)");
  };
  EXPECT_EQ(pointer_of({{"sigma", 101}}), "/sigma");
  EXPECT_EQ(pointer_of({{"sigma", {1, 2, 3}}}), "/sigma");
  EXPECT_EQ(pointer_of({{"center", {1}}}), "/center");
  EXPECT_EQ(pointer_of({{"center", {1, 11}}}), "/center/1");
  EXPECT_EQ(pointer_of({{"factor", 9}}), "/factor");
  EXPECT_EQ(pointer_of({{"bounds", {0.5, 2}}}), "/bounds/1");
}

enum class Edge { kZero, kMirror, kWrap };

struct Chosen : DeclaredFields<Chosen> {
  Edge edge = Edge::kZero;
  static void declare(Fields<Chosen>& f) {
    f.choice("edge", &Chosen::edge, Edge::kMirror, {{Edge::kZero, "zeros"}, {Edge::kMirror, "mirror"}, {Edge::kWrap, "wrap"}},
             "how the border is filled");
  }
};

TEST(Fields, AChoiceIsGivenAndWrittenByNameAndDocumentedAsItsNames) {
  const auto none = nlohmann::json::object();
  ObjectReader absent(none);
  EXPECT_EQ(Chosen::read(absent).edge, Edge::kMirror);
  const nlohmann::json wrap = {{"edge", "wrap"}};
  ObjectReader given(wrap);
  const auto c = Chosen::read(given);
  EXPECT_EQ(c.edge, Edge::kWrap);
  nlohmann::json out = nlohmann::json::object();
  c.write(out);
  EXPECT_EQ(out, nlohmann::json({{"edge", "wrap"}}));
  const nlohmann::json clamp = {{"edge", "clamp"}};
  ObjectReader wrong(clamp);
  try {
    Chosen::read(wrong);
    ADD_FAILURE() << "clamp was read";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/edge");
    EXPECT_NE(std::string(e.what()).find("zeros"), std::string::npos) << e.what();
  }
  ASSERT_EQ(Chosen::docs().size(), 1u);
  EXPECT_EQ(Chosen::docs()[0].type, "zeros|mirror|wrap");
  EXPECT_EQ(Chosen::docs()[0].default_value, "\"mirror\"");
}

}  // namespace
}  // namespace devparity
