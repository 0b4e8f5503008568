#pragma once
// Shared plumbing for the seeded-fault twins: each fault is a template on
// `kFaulty`, registered twice (fault_<name> and clean_<name>) so the two
// differ only in the seeded bug.

#include "harness/base/json_reader.h"
#include "harness/subject/transform.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <string>

namespace devparity::faults {

/// TransformInfo for a twin: "fault_<name>" or "clean_<name>", float dtypes.
inline TransformInfo twin_info(const std::string& name, bool faulty, const std::string& what) {
  TransformInfo info;
  info.name = (faulty ? "fault_" : "clean_") + name;
  info.family = "faults";
  info.description = faulty ? what : "clean twin of fault_" + name;
  info.dtypes = {at::kFloat, at::kDouble};
  return info;
}

/// Four cases of `subject`, one per seed 0..3, on a float32 noise image of
/// 2x3x29x37: what the numeric twins (perturbed numerics, CUDA's arithmetic) run on.
inline nlohmann::json seeded_noise_cases(const std::string& subject) {
  auto cases = nlohmann::json::array();
  for (int seed = 0; seed < 4; ++seed) {
    cases.push_back({{"name", "seed" + std::to_string(seed)},
                     {"subject", subject},
                     {"seed", seed},
                     {"inputs", {{{"pattern", "noise"}, {"shape", {2, 3, 29, 37}}}}},
                     {"dtypes", {"float32"}}});
  }
  return cases;
}

/// sample() for twins without parameters: accepts only {}.
inline nlohmann::json no_params(const nlohmann::json& given) {
  ObjectReader(given).finish();
  return nlohmann::json::object();
}

/// Base of a parameterless twin: name, description and sample(); the twin
/// writes apply(). `Base` is Transform or StatefulTransform.
template <typename Base = Transform>
class Twin : public Base {
 public:
  Twin(const std::string& name, bool faulty, const std::string& what, bool differentiable = false)
      : info_(twin_info(name, faulty, what)) {
    info_.differentiable = differentiable;
  }
  const TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef,
                        at::Generator&) const override {
    return no_params(given);
  }

 private:
  TransformInfo info_;
};

}  // namespace devparity::faults
