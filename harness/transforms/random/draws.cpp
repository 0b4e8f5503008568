#include "harness/transforms/random/draws.h"

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/generator_seed.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <mutex>

namespace devparity::random_draws {

std::vector<float> uniform(at::Generator& generator, int64_t batch, float low, float high,
                           bool same_on_batch) {
  const int64_t draws = same_on_batch ? 1 : batch;
  const auto options = at::TensorOptions().dtype(at::kFloat);
  const auto rand = at::rand({draws}, generator, options);
  const auto lo = at::full({}, low, options), hi = at::full({}, high, options);
  const auto values = (lo + rand * (hi - lo)).contiguous();
  const float* p = values.data_ptr<float>();
  std::vector<float> out;
  for (int64_t i = 0; i < batch; ++i) out.push_back(p[same_on_batch ? 0 : i]);
  return out;
}

std::vector<bool> gate(at::Generator& generator, int64_t batch, double p, bool same_on_batch) {
  if (p >= 1.0) return std::vector<bool>(static_cast<size_t>(batch), true);
  if (p <= 0.0) return std::vector<bool>(static_cast<size_t>(batch), false);
  const auto rand = at::rand({same_on_batch ? 1 : batch}, generator, at::TensorOptions().dtype(at::kFloat));
  const float* r = rand.data_ptr<float>();
  std::vector<bool> out;
  for (int64_t i = 0; i < batch; ++i) out.push_back(r[same_on_batch ? 0 : i] < static_cast<float>(p));
  return out;
}

std::optional<std::vector<double>> PerChannel::read(ObjectReader& reader) const {
  const auto* v = reader.get(name);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (v->is_number()) return std::vector<double>{reader.number(name, std::nullopt, lo, hi)};
  auto values = reader.numbers(name, 0, lo, hi);
  if (values.empty()) throw FieldError(reader.pointer(name), "expected a number or one per channel");
  return values;
}

std::vector<double> PerChannel::read_for(ObjectReader& reader, int64_t channels, double fallback) const {
  auto v = read(reader).value_or(std::vector<double>{fallback});
  if (v.size() == 1) v.resize(static_cast<size_t>(channels), v[0]);
  if (static_cast<int64_t>(v.size()) != channels) {
    throw FieldError(reader.pointer(name), fmt::format("expected one value or one per channel ({})", channels));
  }
  return v;
}

ParamDoc PerChannel::doc() const { return {name, type, default_text, meaning}; }

// Note [Explicit values]:
// A random transform's per-sample values (illumination's gains, a shuffle's
// permutations) may be given in a case instead of drawn, to pin a trial to a
// known sample. They describe what the user wants to see applied, so they
// also stand in for the gate unless "apply" says otherwise: drawing a p = 0.5
// gate under them would silently leave samples untouched.
std::vector<bool> read_gate(ObjectReader& reader, int64_t batch, at::Generator& gen, double p,
                             bool same_on_batch, std::initializer_list<const PerSample*> explicit_values) {
  if (const auto* v = reader.get("apply")) {
    if (!v->is_array() || static_cast<int64_t>(v->size()) != batch) {
      throw FieldError(reader.pointer("apply"),
                       fmt::format("expected one true/false per sample ({}), got {}", batch,
                                   describe_json(*v)));
    }
    std::vector<bool> out;
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_boolean()) {
        throw FieldError(reader.pointer("apply") + "/" + std::to_string(i), "expected true or false");
      }
      out.push_back((*v)[i].get<bool>());
    }
    return out;
  }
  for (const auto* value : explicit_values) {
    if (value->given(reader)) return std::vector<bool>(static_cast<size_t>(batch), true);
  }
  return gate(gen, batch, p, same_on_batch);
}

std::pair<double, double> read_range(ObjectReader& reader, const std::string& key,
                                     std::pair<double, double> fallback, double min, double max) {
  const auto* v = reader.get(key);
  if (v == nullptr) return fallback;
  const auto ptr = reader.pointer(key);
  if (v->is_number()) {
    const double x = read_number(*v, ptr, min, max);
    return {x, x};
  }
  if (!v->is_array() || v->size() != 2) {
    throw FieldError(ptr, fmt::format("expected a number or [low, high] in [{}, {}], got {}", min,
                                      max, describe_json(*v)));
  }
  const double lo = read_number((*v)[0], ptr + "/0", min, max);
  const double hi = read_number((*v)[1], ptr + "/1", min, max);
  if (lo > hi) throw FieldError(ptr, fmt::format("low {} is above high {}", lo, hi));
  return {lo, hi};
}

bool PerSample::given(ObjectReader& reader) const { return reader.get(name) != nullptr; }

std::optional<std::vector<double>> PerSample::read(ObjectReader& reader, int64_t batch) const {
  const auto* v = reader.get(name);
  if (v == nullptr) return std::nullopt;
  const auto ptr = reader.pointer(name);
  if (v->is_number()) {
    return std::vector<double>(static_cast<size_t>(batch), read_number(*v, ptr, min, max));
  }
  if (!v->is_array() || (v->size() != 1 && static_cast<int64_t>(v->size()) != batch)) {
    throw FieldError(ptr, fmt::format("expected one value per sample ({}) or one for all, got {}",
                                      batch, describe_json(*v)));
  }
  std::vector<double> out;
  for (size_t i = 0; i < v->size(); ++i) {
    out.push_back(read_number((*v)[i], ptr + "/" + std::to_string(i), min, max));
  }
  if (out.size() == 1) out.resize(static_cast<size_t>(batch), out[0]);
  return out;
}

ParamDoc PerSample::doc() const { return {name, type, "drawn", meaning}; }

std::vector<ParamDoc> docs(std::initializer_list<const PerSample*> values) {
  std::vector<ParamDoc> out;
  for (const auto* v : values) out.push_back(v->doc());
  return out;
}

std::pair<double, double> DrawRange::read(ObjectReader& reader) const {
  return read_range(reader, name, fallback, min, max);
}

void DrawRange::write(nlohmann::json& out, std::pair<double, double> value) const {
  out[name] = {value.first, value.second};
}

ParamDoc DrawRange::doc() const {
  return {name, type != nullptr ? std::string(type) : fmt::format("number or [low, high] in [{}, {}]", min, max),
          fmt::format("[{}, {}]", fallback.first, fallback.second), meaning};
}

uint64_t DrawnSeed::read(ObjectReader& reader, at::Generator& generator) const {
  if (!reader.has(name)) return draw_seed(generator);
  return static_cast<uint64_t>(reader.integer(name, std::nullopt, 0, int64_t{1} << 53));
}

ParamDoc DrawnSeed::doc() const {
  return {name, "integer >= 0", "drawn", fmt::format("seed of {} (reports give it, to replay)", of)};
}

RandomGate RandomGate::read(ObjectReader& reader, int64_t batch, at::Generator& generator,
                            std::initializer_list<const PerSample*> explicit_values, bool with_same) {
  RandomGate g;
  g.p = reader.number("p", 0.5, 0.0, 1.0);
  g.same_on_batch = with_same && reader.boolean("same_on_batch", false);
  g.apply = read_gate(reader, batch, generator, g.p, g.same_on_batch, explicit_values);
  return g;
}

void RandomGate::write(nlohmann::json& out, bool with_same) const {
  out["p"] = p;
  if (with_same) out["same_on_batch"] = same_on_batch;
  out["apply"] = apply;
}

std::vector<ParamDoc> RandomGate::docs(bool with_same, const std::string& apply_meaning) {
  std::vector<ParamDoc> out = {{"p", "number in [0, 1]", "0.5", "probability per sample"}};
  if (with_same) out.push_back({"same_on_batch", "bool", "false", "one draw for the whole batch"});
  out.push_back({"apply", "[bool per sample]", "drawn", apply_meaning});
  return out;
}

}  // namespace devparity::random_draws
