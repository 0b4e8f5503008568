#pragma once
/// Fields<Config>: each parameter of a configured transform declared once —
/// name, type text, default, range and meaning — yielding its reading (with
/// the range check), its writing back and its ParamDoc for `devparity list`
/// and the catalog (Catch2's Opt(field, hint) is the model). A Config derives
/// from DeclaredFields<Config> and defines `static void
/// declare(Fields<Config>&)`; ConfiguredTransform then needs nothing else of it.

#include "harness/base/json_reader.h"
#include "harness/base/named_values.h"
#include "harness/subject/transform.h"

#include <c10/util/ArrayRef.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

namespace devparity {

template <typename Config>
class Fields {
 public:
  using Reader = std::function<void(ObjectReader&, Config&)>;
  using Writer = std::function<void(const Config&, nlohmann::json&)>;

  /// A finite number in [lo, hi]; no fallback: required.
  Fields& number(const char* name, double Config::*member, std::optional<double> fallback, double lo, double hi,
                 std::string type, std::string meaning) {
    return field({name, std::move(type), default_text(fallback), std::move(meaning)},
                 [=](ObjectReader& r, Config& c) { c.*member = r.number(name, fallback, lo, hi); },
                 [=](const Config& c, nlohmann::json& out) { out[name] = c.*member; });
  }

  /// An integer in [lo, hi]; no fallback: required.
  Fields& integer(const char* name, int64_t Config::*member, std::optional<int64_t> fallback, int64_t lo, int64_t hi,
                  std::string type, std::string meaning) {
    return field({name, std::move(type), default_text(fallback), std::move(meaning)},
                 [=](ObjectReader& r, Config& c) { c.*member = r.integer(name, fallback, lo, hi); },
                 [=](const Config& c, nlohmann::json& out) { out[name] = c.*member; });
  }

  /// A required [first, second] of integers in [lo, hi] (a size: [height, width]).
  Fields& integer_pair(const char* name, int64_t Config::*first, int64_t Config::*second, int64_t lo, int64_t hi,
                       std::string type, std::string meaning) {
    return field({name, std::move(type), "required", std::move(meaning)},
                 [=](ObjectReader& r, Config& c) {
                   const auto both = r.integers(name, 2, lo, hi);
                   c.*first = both[0];
                   c.*second = both[1];
                 },
                 [=](const Config& c, nlohmann::json& out) { out[name] = {c.*first, c.*second}; });
  }

  /// A boolean.
  Fields& boolean(const char* name, bool Config::*member, std::optional<bool> fallback, std::string meaning) {
    return field({name, "bool", default_text(fallback), std::move(meaning)},
                 [=](ObjectReader& r, Config& c) { c.*member = r.boolean(name, fallback); },
                 [=](const Config& c, nlohmann::json& out) { out[name] = c.*member; });
  }

  /// One of `choices`, given and written by name; documented as "a|b|c".
  template <typename T>
  Fields& choice(const char* name, T Config::*member, T fallback, std::vector<NamedValue<T>> choices,
                 std::string meaning) {
    std::string type, fallback_name;
    std::vector<std::string> names;
    for (const auto& c : choices) {
      type += (type.empty() ? "" : "|") + std::string(c.name);
      names.emplace_back(c.name);
      if (c.value == fallback) fallback_name = c.name;
    }
    return field({name, std::move(type), fmt::format("\"{}\"", fallback_name), std::move(meaning)},
                 [=](ObjectReader& r, Config& c) {
                   const auto given = r.string(name, fallback_name, names);
                   for (const auto& choice : choices) {
                     if (given == choice.name) c.*member = choice.value;
                   }
                 },
                 [=](const Config& c, nlohmann::json& out) {
                   for (const auto& choice : choices) {
                     if (c.*member == choice.value) out[name] = choice.name;
                   }
                 });
  }

  /// A number x (meaning [x, x]) or [first, second], each in [lo, hi]
  /// (ObjectReader::pair); written as [first, second].
  Fields& pair(const char* name, std::pair<double, double> Config::*member, std::pair<double, double> fallback,
               double lo, double hi, std::string type, std::string meaning) {
    return field({name, std::move(type), fmt::format("[{}, {}]", fallback.first, fallback.second), std::move(meaning)},
                 [=](ObjectReader& r, Config& c) { c.*member = r.pair(name, fallback, lo, hi); },
                 [=](const Config& c, nlohmann::json& out) { out[name] = {(c.*member).first, (c.*member).second}; });
  }

  /// [first, second] in [lo, hi], or null (the default: none).
  Fields& optional_pair(const char* name, std::optional<std::pair<double, double>> Config::*member, double lo,
                        double hi, std::string type, std::string meaning) {
    return field({name, std::move(type), "null", std::move(meaning)},
                 [=](ObjectReader& r, Config& c) {
                   const auto* v = r.get(name);
                   if (v == nullptr || v->is_null()) return;
                   const auto both = r.numbers(name, 2, lo, hi);
                   c.*member = std::make_pair(both[0], both[1]);
                 },
                 [=](const Config& c, nlohmann::json& out) {
                   const auto& v = c.*member;
                   out[name] = v ? nlohmann::json({v->first, v->second}) : nlohmann::json(nullptr);
                 });
  }

  /// A part of several fields that reads, writes and documents itself
  /// (resampling options, a nested DeclaredFields config):
  /// `Part::read(reader, args...)`, `part.write(out)`, `Part::docs(args...)`.
  template <typename Part, typename... Args>
  Fields& part(Part Config::*member, Args... args) {
    return group(Part::docs(args...), [=](ObjectReader& r, Config& c) { c.*member = Part::read(r, args...); },
                 [=](const Config& c, nlohmann::json& out) { (c.*member).write(out); });
  }

  /// A field declared apart (a draw range the transform reads elsewhere too):
  /// `declared.doc()`, `declared.read(reader)`, `declared.write(out, value)`;
  /// `declared` must outlive the fields.
  template <typename Declared, typename T>
  Fields& declared(const Declared& declared, T Config::*member) {
    return field(
        declared.doc(), [&declared, member](ObjectReader& r, Config& c) { c.*member = declared.read(r); },
        [&declared, member](const Config& c, nlohmann::json& out) { declared.write(out, c.*member); });
  }

  /// A field read and written by the caller (a pair, an optional, a mode),
  /// documented by `doc`.
  Fields& field(ParamDoc doc, Reader read, Writer write) {
    docs_.push_back(std::move(doc));
    readers_.push_back(std::move(read));
    writers_.push_back(std::move(write));
    return *this;
  }

  /// Several fields read and written together (a shared group of options).
  Fields& group(const std::vector<ParamDoc>& docs, Reader read, Writer write) {
    docs_.insert(docs_.end(), docs.begin(), docs.end());
    readers_.push_back(std::move(read));
    writers_.push_back(std::move(write));
    return *this;
  }

  /// Every field, in declaration order.
  Config read(ObjectReader& r) const {
    Config c;
    for (const auto& read : readers_) read(r, c);
    return c;
  }
  void write(const Config& c, nlohmann::json& out) const {
    for (const auto& write : writers_) write(c, out);
  }
  const std::vector<ParamDoc>& docs() const { return docs_; }

 private:
  template <typename T>
  static std::string default_text(const std::optional<T>& fallback) {
    if (!fallback) return "required";
    if constexpr (std::is_same_v<T, bool>) {
      return *fallback ? "true" : "false";
    } else {
      return fmt::format("{}", *fallback);  // 1, not nlohmann's 1.0, as the catalog writes numbers
    }
  }

  std::vector<ParamDoc> docs_;
  std::vector<Reader> readers_;
  std::vector<Writer> writers_;
};

/// The Config side of ConfiguredTransform from one declaration: a Config
/// defines `static void declare(Fields<Config>&)`, declared once per process
/// (fields()); a Config with checks against the input's shape defines its
/// own check().
template <typename Config>
struct DeclaredFields {
  static const Fields<Config>& fields() {
    static const auto f = [] {
      Fields<Config> declared;
      Config::declare(declared);
      return declared;
    }();
    return f;
  }
  static Config read(ObjectReader& r) { return fields().read(r); }
  static const std::vector<ParamDoc>& docs() { return fields().docs(); }
  void write(nlohmann::json& out) const { fields().write(static_cast<const Config&>(*this), out); }
  void check(c10::IntArrayRef) const {}
};

}  // namespace devparity
