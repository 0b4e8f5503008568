#pragma once
/// ConfiguredTransform<Config>: the sample/apply plumbing shared by
/// deterministic transforms whose parameters are one Config struct
/// (internal to harness/transforms).
///
/// Config provides:
///   static Config read(ObjectReader&);        // every field, with defaults
///   void check(c10::IntArrayRef shape) const;  // checks against the input shape
///   void write(nlohmann::json&) const;         // the complete parameters
/// as a DeclaredFields<Config> does, whose docs the transform then lists.

#include "harness/base/json_reader.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/transform.h"

#include <nlohmann/json.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace devparity {

/// Throws InputError unless `shape` is NCHW with positive sizes.
void require_nchw(c10::IntArrayRef shape, const std::string& subject);

/// require_nchw() and exactly three channels (RGB).
void require_rgb(c10::IntArrayRef shape, const std::string& subject);

template <typename Config>
class ConfiguredTransform : public Described<Transform> {
 public:
  /// A Config declared with Fields documents its parameters itself: they
  /// come first in `info`'s.
  explicit ConfiguredTransform(TransformInfo info) : Described<Transform>(with_config_docs(std::move(info))) {}

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape,
                        at::Generator&) const override {
    nlohmann::json out = nlohmann::json::object();
    parse(given, shape).write(out);
    return out;
  }

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params) const override {
    return run(x, parse(params, x.sizes()));
  }

 protected:
  /// The transform itself, on validated parameters.
  virtual at::Tensor run(const at::Tensor& x, const Config& config) const = 0;

 private:
  static TransformInfo with_config_docs(TransformInfo info) {
    if constexpr (std::is_base_of_v<DeclaredFields<Config>, Config>) {
      const auto& docs = Config::fields().docs();
      info.params.insert(info.params.begin(), docs.begin(), docs.end());
    }
    return info;
  }

  Config parse(const nlohmann::json& params, c10::IntArrayRef shape) const {
    require_nchw(shape, info_.name);
    ObjectReader reader(params);
    const auto config = Config::read(reader);
    reader.finish();
    config.check(shape);
    return config;
  }
};

}  // namespace devparity
