#pragma once
// Runs a registered built-in the way the runner does: sample() on the CPU
// with a seeded generator, then apply() on the input's device.

#include "harness/builtins.h"
#include "harness/subject/execution.h"
#include "harness/subject/transform_registry.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace devparity::test_support {

inline at::Tensor apply_builtin(const std::string& name, const at::Tensor& x,
                                const nlohmann::json& given = nlohmann::json::object(), uint64_t seed = 0) {
  register_builtins();
  const auto* t = TransformRegistry::global().find(name);
  if (t == nullptr) {
    ADD_FAILURE() << "no transform " << name;
    return {};
  }
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  // On the input's device, like the runner, through the one execute().
  return execute_or_throw(*t, x, t->sample(given, x.sizes(), gen), x.device());
}

/// max |a - b| <= tol, compared in float64, with equal shapes.
inline void expect_close(const at::Tensor& a, const at::Tensor& b, double tol) {
  ASSERT_EQ(a.sizes(), b.sizes());
  EXPECT_LE((a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>(), tol) << a << b;
}

/// A 1 x C x 1 x W image from per-pixel colours, given pixel-major.
inline at::Tensor pixels(std::vector<std::vector<double>> colours, c10::ScalarType dtype = at::kDouble) {
  const auto n = static_cast<int64_t>(colours.size());
  const auto c = static_cast<int64_t>(colours[0].size());
  auto t = at::empty({n, c}, at::kDouble);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < c; ++k) t[i][k] = colours[static_cast<size_t>(i)][static_cast<size_t>(k)];
  }
  return t.t().reshape({1, c, 1, n}).to(dtype).contiguous();
}

}  // namespace devparity::test_support
