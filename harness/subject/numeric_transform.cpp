#include "harness/subject/numeric_transform.h"

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/trace/scope.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace devparity {
namespace {

std::string number_text(double v) {
  nlohmann::json j = v;
  if (v == static_cast<double>(static_cast<int64_t>(v))) j = static_cast<int64_t>(v);
  return j.dump();
}

// The documentation of the table's parameters.
std::vector<ParamDoc> docs_of(const std::vector<NumericParam>& params) {
  std::vector<ParamDoc> docs;
  for (const auto& p : params) {
    std::string range =
        fmt::format("{} in [{}, {}]", p.integer ? "integer" : "number", number_text(p.lo), number_text(p.hi));
    if (!p.choices.empty()) range = fmt::format("{}", fmt::join(p.choices, " or "));
    std::string fallback = number_text(p.fallback);
    if (p.boolean) {
      docs.push_back({p.name, "bool", p.fallback != 0.0 ? "true" : "false", p.description});
      continue;
    }
    if (p.list) {
      nlohmann::json j = nlohmann::json::array();
      for (double v : p.list_fallback) j.push_back(nlohmann::json::parse(number_text(v)));
      fallback = j.dump();
    }
    docs.push_back({p.name, p.list ? "[" + range + " per channel] or one" : range, fallback, p.description});
  }
  return docs;
}

class NumericTransform final : public Described<Transform> {
 public:
  NumericTransform(TransformInfo info, std::vector<NumericParam> params, Channels channels, NumericApply fn)
      : Described(Describe(std::move(info)).params(docs_of(params))),
        params_(std::move(params)),
        channels_(channels),
        fn_(std::move(fn)) {}

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape, at::Generator&) const override {
    const auto values = read(given, shape);
    nlohmann::json out = nlohmann::json::object();
    for (size_t i = 0; i < params_.size(); ++i) {
      if (params_[i].list) {
        out[params_[i].name] = values[i];
      } else if (params_[i].boolean) {
        out[params_[i].name] = values[i][0] != 0.0;
      } else if (params_[i].integer) {
        out[params_[i].name] = static_cast<int64_t>(values[i][0]);
      } else {
        out[params_[i].name] = values[i][0];
      }
    }
    return out;
  }

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params) const override {
    const auto values = read(params, x.sizes());
    TraceScope scope(info_.name.c_str());
    return fn_(x, values);
  }

 private:
  NumericValues read(const nlohmann::json& given, c10::IntArrayRef shape) const {
    if (channels_ == Channels::kRgb) {
      require_rgb(shape, info_.name);
    } else {
      require_nchw(shape, info_.name);
      if (channels_ == Channels::kGrayOrRgb && shape[1] != 1 && shape[1] != 3) {
        throw InputError(fmt::format("{} takes 1 (grey) or 3 (RGB) channels, got {}", info_.name, shape[1]));
      }
    }
    ObjectReader r(given);
    NumericValues values;
    for (const auto& p : params_) {
      if (p.list) {
        // One value for every channel may be given bare, as torchvision takes it.
        const auto* given_value = r.get(p.name);
        auto v = given_value == nullptr      ? p.list_fallback
                 : given_value->is_number() ? std::vector<double>{r.number(p.name, std::nullopt, p.lo, p.hi)}
                                             : r.numbers(p.name, 0, p.lo, p.hi);
        if (v.size() == 1) v.resize(static_cast<size_t>(shape[1]), v[0]);
        if (static_cast<int64_t>(v.size()) != shape[1]) {
          throw FieldError(r.pointer(p.name), fmt::format("expected one value per channel ({}) or one "
                                                          "for all, got {}", shape[1], v.size()));
        }
        values.push_back(v);
      } else if (p.boolean) {
        values.push_back({r.boolean(p.name, p.fallback != 0.0) ? 1.0 : 0.0});
      } else if (p.integer) {
        values.push_back({static_cast<double>(r.integer(p.name, static_cast<int64_t>(p.fallback),
                                                        static_cast<int64_t>(p.lo), static_cast<int64_t>(p.hi)))});
      } else {
        values.push_back({r.number(p.name, p.fallback, p.lo, p.hi)});
      }
      const double v = values.back()[0];
      if (!p.choices.empty() && std::find(p.choices.begin(), p.choices.end(), v) == p.choices.end()) {
        throw FieldError(r.pointer(p.name), fmt::format("expected one of {}, got {}", fmt::join(p.choices, ", "),
                                                        number_text(v)));
      }
    }
    r.finish();
    return values;
  }

  std::vector<NumericParam> params_;
  Channels channels_;
  NumericApply fn_;
};

}  // namespace

std::unique_ptr<Transform> make_numeric_transform(TransformInfo info, std::vector<NumericParam> params,
                                                  Channels channels, NumericApply apply) {
  return std::make_unique<NumericTransform>(std::move(info), std::move(params), channels, std::move(apply));
}

}  // namespace devparity
