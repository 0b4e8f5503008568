#pragma once
/// ConfiguredTransform<Config>: the sample/apply plumbing shared by
/// deterministic transforms whose parameters are one Config struct
/// (internal to harness/transforms).
///
/// Config provides:
///   static Config read(ObjectReader&);        // every field, with defaults
///   void check(c10::IntArrayRef shape) const;  // checks against the input shape
///   void write(nlohmann::json&) const;         // the complete parameters

#include "harness/base/json_reader.h"
#include "harness/subject/transform.h"

#include <nlohmann/json.hpp>

#include <string>

namespace devparity {

/// Throws InputError unless `shape` is NCHW with positive sizes.
void require_nchw(c10::IntArrayRef shape, const std::string& subject);

/// require_nchw() and exactly three channels (RGB).
void require_rgb(c10::IntArrayRef shape, const std::string& subject);

/// Base (Transform or StatefulTransform) with the TransformInfo the
/// constructor fills in and info() returns.
template <typename Base>
class Described : public Base {
 public:
  const TransformInfo& info() const override { return info_; }

 protected:
  TransformInfo info_;
};

template <typename Config>
class ConfiguredTransform : public Transform {
 public:
  const TransformInfo& info() const override { return info_; }

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

  TransformInfo info_;

 private:
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
