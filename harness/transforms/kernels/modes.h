#pragma once
/// The modes the kernels take, as enums: a configuration reads its mode once
/// (in sample(), by name, from the choices it allows) and the kernels
/// branch on the enum, never on text. Names are the JSON spellings, written
/// back into the parameters unchanged (internal to harness/transforms).

#include "harness/base/json_reader.h"
#include "harness/subject/fields.h"

#include <string>
#include <vector>

namespace devparity {

/// Resampling between pixel centres.
enum class Interpolation { kNearest, kBilinear, kBicubic, kArea };
/// grid_sample's padding: what a read outside the image gives.
enum class Padding { kZeros, kBorder, kReflection };
/// How filters and pads extend an image past its edges.
enum class Border { kReflect, kReplicate, kConstant, kCircular, kSymmetric };

const char* name_of(Interpolation mode);
const char* name_of(Padding mode);
const char* name_of(Border mode);

/// Reads the mode `key` among `allowed` (listed in that order when the field
/// names another), `fallback` when absent.
template <typename Mode>
Mode read_mode(ObjectReader& reader, const std::string& key, Mode fallback, const std::vector<Mode>& allowed) {
  std::vector<std::string> names;
  for (auto mode : allowed) names.emplace_back(name_of(mode));
  const auto name = reader.string(key, std::string(name_of(fallback)), names);
  for (auto mode : allowed) {
    if (name == name_of(mode)) return mode;
  }
  return fallback;  // string() accepted only a listed name
}

/// Declares the mode field `key` of a Fields<Config>: read among `allowed`,
/// written back by name, documented as "a|b|c" with its default.
template <typename Config, typename Mode>
Fields<Config>& mode_field(Fields<Config>& fields, const char* key, Mode Config::*member, Mode fallback,
                           std::vector<Mode> allowed, std::string meaning) {
  std::vector<NamedValue<Mode>> choices;
  for (auto mode : allowed) choices.push_back({mode, name_of(mode)});
  return fields.choice(key, member, fallback, std::move(choices), std::move(meaning));
}

}  // namespace devparity
