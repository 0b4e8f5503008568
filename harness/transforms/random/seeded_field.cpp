#include "harness/transforms/random/seeded_field.h"

#include "harness/subject/configured.h"
#include "harness/transforms/random/draws.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <utility>

namespace devparity {

namespace {

std::vector<ParamDoc> docs_of(const std::vector<FieldSetting>& settings) {
  std::vector<ParamDoc> out;
  for (const auto& s : settings) {
    out.push_back({s.name, s.type, s.boolean ? (s.fallback != 0.0 ? "true" : "false") : fmt::format("{}", s.fallback),
                   s.meaning});
  }
  return out;
}

}  // namespace

SeededFieldTransform::SeededFieldTransform(TransformInfo info, std::vector<FieldSetting> settings)
    : StatefulImageTransform(Describe(std::move(info))
                                 .params(docs_of(settings))
                                 .params({random_draws::kFieldSeed.doc()})
                                 .derived("shape", "[N, C, H, W] integers", "the input's shape",
                                          "the shape the field is drawn for")
                                 .random(),
                             // The field's ops run on an empty batch too: they are what the checks trace.
                             EmptyBatch::kRun),
      settings_(std::move(settings)) {}

nlohmann::json SeededFieldTransform::read_settings(ObjectReader& r) const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& s : settings_) {
    if (s.boolean) {
      out[s.name] = r.boolean(s.name, s.fallback != 0.0);
    } else {
      out[s.name] = r.number(s.name, s.fallback, s.lo, s.hi);
    }
  }
  return out;
}

nlohmann::json SeededFieldTransform::sample(const nlohmann::json& given, c10::IntArrayRef shape,
                                            at::Generator& gen) const {
  require_nchw(shape, info_.name);
  ObjectReader r(given);
  nlohmann::json out = read_settings(r);
  out[random_draws::kFieldSeed.name] = random_draws::kFieldSeed.read(r, gen);
  r.finish();
  out["shape"] = shape.vec();
  return out;
}

std::unique_ptr<TransformState> SeededFieldTransform::make_state(const nlohmann::json& p) const {
  auto shape = p.at("shape").get<std::vector<int64_t>>();
  auto gen = at::make_generator<at::CPUGeneratorImpl>(p.at("seed").get<uint64_t>());
  ObjectReader r(p);
  const auto settings = read_settings(r);
  auto state = std::make_unique<TransformState>();
  state->register_tensor("field", draw(gen, shape, settings));
  return state;
}

at::Tensor SeededFieldTransform::run(const at::Tensor& x, const nlohmann::json& p, TransformState& state) const {
  ObjectReader r(p);
  const auto settings = read_settings(r);
  const auto& field = state.tensor("field");
  TORCH_CHECK(field.size(0) == x.size(0) && field.size(2) == x.size(2) && field.size(3) == x.size(3),
              info_.name, ": a field for ", field.sizes(), ", input ", x.sizes());
  return run_with(x, field, settings);
}

}  // namespace devparity
