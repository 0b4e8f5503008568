#pragma once
/// RandomTransform<Settings>: the sample() of a random transform whose
/// settings are one DeclaredFields<Settings> (ranges, modes, resampling
/// options) and whose draws are its own. Every such sample() reads the
/// settings, checks them against the input, draws (or reads the values a
/// case gives instead of the draws), refuses fields nobody read, and writes
/// the settings beside the draws; the transform's docs list the settings
/// first. A subclass writes draw() and apply(), nothing else of sampling.

#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"

#include <ATen/core/Generator.h>
#include <nlohmann/json.hpp>

#include <utility>

namespace devparity {

template <typename Settings, typename Base = Described<Transform>>
class RandomTransform : public Base {
 public:
  /// `extra`: the rest of Base's constructor arguments.
  template <typename... Extra>
  explicit RandomTransform(TransformInfo info, Extra&&... extra)
      : Base(with_settings(std::move(info)), std::forward<Extra>(extra)...) {}

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape, at::Generator& generator) const final {
    require_nchw(shape, this->info().name);
    ObjectReader reader(given);
    const auto settings = Settings::read(reader);
    settings.check(shape);
    nlohmann::json out = nlohmann::json::object();
    draw(settings, reader, shape, generator, out);
    reader.finish();
    settings.write(out);
    return out;
  }

 protected:
  /// The draws for `settings` on an input of `shape`, from `generator` in
  /// the order the library draws them, or the values `given` holds instead:
  /// written into `out`.
  virtual void draw(const Settings& settings, ObjectReader& given, c10::IntArrayRef shape,
                    at::Generator& generator, nlohmann::json& out) const = 0;

 private:
  static TransformInfo with_settings(TransformInfo info) {
    const auto& docs = Settings::docs();
    info.params.insert(info.params.begin(), docs.begin(), docs.end());
    info.random = true;
    return info;
  }
};

}  // namespace devparity
