#pragma once
// A transform made from a function, for tests that need subjects with
// particular behaviour (throwing, mixing devices, returning the wrong thing).

#include "harness/subject/transform_registry.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace devparity::testing {

class LambdaTransform final : public Transform {
 public:
  using Fn = std::function<at::Tensor(const at::Tensor&, const nlohmann::json&)>;

  LambdaTransform(std::string name, Fn fn) : fn_(std::move(fn)) {
    info_.name = std::move(name);
    info_.family = "test";
    info_.description = "test subject";
    info_.dtypes = {at::kByte, at::kFloat, at::kDouble};
  }
  const TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef, at::Generator&) const override {
    return given.is_null() ? nlohmann::json::object() : given;
  }
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p) const override { return fn_(x, p); }

 private:
  TransformInfo info_;
  Fn fn_;
};

/// Registers a LambdaTransform once per process under `name`.
inline void register_lambda(const std::string& name, LambdaTransform::Fn fn) {
  auto& registry = TransformRegistry::global();
  if (registry.find(name) == nullptr) {
    registry.add(std::make_unique<LambdaTransform>(name, std::move(fn)));
  }
}

}  // namespace devparity::testing
