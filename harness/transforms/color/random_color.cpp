// Random colour augmentations. Parameters are drawn in sample() on the CPU
// with the source library's calls in its order; apply() replays them.
//
//   color_jitter (torchvision v2 ColorJitter): order = randperm(4); then
//     b ~ U(brightness), c ~ U(contrast), s ~ U(saturation), h ~ U(hue)
//     (float32 draws, each only when its range is set); applied in `order`
//     (0 brightness, 1 contrast, 2 saturation, 3 hue) with the catalog's
//     adjust_* transforms, one draw for the whole batch. A number v means
//     [max(0, 1 - v), 1 + v] ([-v, v] for hue); 0 leaves it out.
//   channel_shuffle (Kornia RandomChannelShuffle): the gate, then per sample
//     the permutation argsort(rand(B, C)); output channel c of sample b is
//     input channel perm[b][c].
//   rgb_shift (Kornia RandomRGBShift): the gate, then r, g, b shifts, each
//     U(-limit, limit) per sample; clamp(x + shift_c, 0, 1).

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/image_math.h"
#include "harness/transforms/random/draws.h"
#include "harness/transforms/random/random_transform.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <optional>

namespace devparity {
namespace {

// color_jitter's four parts, declared once: reading, bounds, the transform
// each applies and the parameter's doc.
struct JitterPart {
  const char* key;
  const char* transform;
  double center, lo, hi;  // the no-op value and the allowed bounds
  const char* type;
  const char* meaning;

  ParamDoc doc() const { return {key, type, "null", meaning}; }
};

const JitterPart kParts[4] = {
    {"brightness", "adjust_brightness", 1.0, 0.0, 1e6, "v or [lo, hi] >= 0", "factor range; v: [max(0, 1 - v), 1 + v]"},
    {"contrast", "adjust_contrast", 1.0, 0.0, 1e6, "v or [lo, hi] >= 0", "as brightness"},
    {"saturation", "adjust_saturation", 1.0, 0.0, 1e6, "v or [lo, hi] >= 0", "as brightness"},
    {"hue", "adjust_hue", 0.0, -0.5, 0.5, "v or [lo, hi] in [-0.5, 0.5]", "v: [-v, v]"}};

// The explicit values of the random colour transforms.
const random_draws::PerSample kOrder{"order", "permutation of 0..3", "0 brightness, 1 contrast, 2 saturation, 3 hue"};
const random_draws::PerSample kFactors{"factors", "{name: factor}", "explicit factors; replace the draws"};
const random_draws::PerSample kPermutation{"permutation", "[[channel...] per sample]",
                                           "explicit permutations (gate all true)"};
const random_draws::PerSample kShifts{"shifts", "[[r, g, b] per sample]", "explicit shifts (gate all true)"};

// rgb_shift's limits, one per channel.
struct ShiftLimit {
  const char* key;
  const char* meaning;
};
const ShiftLimit kLimits[3] = {{"r_shift_limit", "r shift ~ U(-limit, limit)"},
                               {"g_shift_limit", "g shift ~ U(-limit, limit)"},
                               {"b_shift_limit", "b shift ~ U(-limit, limit)"}};
constexpr double kDefaultLimit = 0.5;

// torchvision's _check_input: nullopt for a range that does nothing.
std::optional<std::pair<double, double>> read_jitter_range(ObjectReader& r, const JitterPart& part) {
  const auto* v = r.get(part.key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  std::pair<double, double> range;
  if (v->is_number()) {
    const double x = r.number(part.key, std::nullopt, 0.0, part.hi);
    range = {std::max(part.center - x, part.lo), part.center + x};
    if (x == 0.0) return std::nullopt;
  } else {
    range = random_draws::read_range(r, part.key, {part.center, part.center}, part.lo, part.hi);
    if (range.first == part.center && range.second == part.center) return std::nullopt;
  }
  if (range.second > part.hi) throw FieldError(r.pointer(part.key), fmt::format("range beyond {}", part.hi));
  return range;
}

// The four ranges, read as torchvision's _check_input does (none: the part is left out).
struct JitterRanges : DeclaredFields<JitterRanges> {
  std::optional<std::pair<double, double>> ranges[4];
  static void declare(Fields<JitterRanges>& f) {
    for (size_t i = 0; i < 4; ++i) {
      const auto& part = kParts[i];
      f.field(part.doc(), [&part, i](ObjectReader& r, JitterRanges& j) { j.ranges[i] = read_jitter_range(r, part); },
              [&part, i](const JitterRanges& j, nlohmann::json& out) {
                const auto& range = j.ranges[i];
                out[part.key] = range ? nlohmann::json({range->first, range->second}) : nlohmann::json(nullptr);
              });
    }
  }
};

class ColorJitter final : public RandomTransform<JitterRanges> {
 public:
  ColorJitter()
      : RandomTransform(
            Describe("color_jitter", "color",
                     "torchvision's ColorJitter: brightness, contrast, saturation, hue in a random order")
                .params(random_draws::docs({&kOrder, &kFactors}))
                .dtypes(kImageDtypes)) {}

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params) const override {
    DEVPARITY_TRACE_SCOPE("color_jitter");
    require_nchw(x.sizes(), info_.name);
    const auto& factors = params.at("factors");
    auto out = x;
    for (const auto i : params.at("order").get<std::vector<int64_t>>()) {
      const auto& part = kParts[i];
      if (!factors.contains(part.key)) continue;
      const auto* step = TransformRegistry::global().find(part.transform);
      TORCH_CHECK(step != nullptr, "color_jitter needs ", part.transform);
      out = step->apply(out, {{"factor", factors.at(part.key)}});
    }
    return out.is_same(x) ? x.clone() : out;
  }

 private:
  void draw(const JitterRanges& settings, ObjectReader& r, c10::IntArrayRef, at::Generator& gen,
            nlohmann::json& out) const override {
    const auto& ranges = settings.ranges;
    // torchvision draws the order first, then each set factor in turn.
    std::vector<int64_t> order;
    const auto drawn_order = at::randperm(4, gen, at::kLong);
    for (int i = 0; i < 4; ++i) order.push_back(drawn_order[i].item<int64_t>());
    if (kOrder.given(r)) {
      order = r.integers(kOrder.name, 4, 0, 3);
      std::vector<int64_t> sorted = order;
      std::sort(sorted.begin(), sorted.end());
      if (sorted != std::vector<int64_t>{0, 1, 2, 3}) throw FieldError(r.pointer(kOrder.name), "expected a permutation of 0..3");
    }
    nlohmann::json factors = nlohmann::json::object();
    for (int i = 0; i < 4; ++i) {
      if (!ranges[i]) continue;
      factors[kParts[i].key] =
          at::empty({1}, at::kFloat).uniform_(ranges[i]->first, ranges[i]->second, gen).item<double>();
    }
    if (const auto* explicit_factors = r.get(kFactors.name); explicit_factors != nullptr) {
      ObjectReader f(*explicit_factors, r.pointer(kFactors.name));
      for (const auto& part : kParts) {
        if (f.has(part.key)) factors[part.key] = f.number(part.key, std::nullopt, part.lo, part.hi);
      }
      f.finish();
    }
    out[kOrder.name] = order;
    out[kFactors.name] = factors;
  }
};

// A transform whose sampling draws alone: no settings.
struct NoSettings : DeclaredFields<NoSettings> {
  static void declare(Fields<NoSettings>&) {}
};

class ChannelShuffle final : public RandomTransform<NoSettings> {
 public:
  ChannelShuffle()
      : RandomTransform(Describe("channel_shuffle", "color",
                                 "Kornia's RandomChannelShuffle: a random channel permutation per sample")
                            .params(random_draws::RandomGate::docs(false, "explicit gate"))
                            .params({kPermutation.doc()})
                            .dtypes(kImageDtypes)
                            .differentiable()) {}

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params) const override {
    DEVPARITY_TRACE_SCOPE("channel_shuffle");
    require_nchw(x.sizes(), info_.name);
    const auto perms = read_permutations(params.at("permutation"), "/permutation", x.size(0), x.size(1));
    const auto apply = params.at("apply").get<std::vector<bool>>();
    if (x.size(0) == 0) return x.clone();
    std::vector<at::Tensor> samples;
    for (int64_t b = 0; b < x.size(0); ++b) {
      const auto sample = x.narrow(0, b, 1);
      if (!apply[static_cast<size_t>(b)]) {
        samples.push_back(sample);
        continue;
      }
      std::vector<at::Tensor> channels;
      for (const auto c : perms[static_cast<size_t>(b)]) channels.push_back(sample.narrow(1, c, 1));
      samples.push_back(at::cat(channels, 1));
    }
    return at::cat(samples, 0);
  }

 private:
  static std::vector<std::vector<int64_t>> read_permutations(const nlohmann::json& v, const std::string& ptr,
                                                             int64_t batch, int64_t channels) {
    if (!v.is_array() || static_cast<int64_t>(v.size()) != batch) {
      throw FieldError(ptr, fmt::format("expected one permutation per sample ({})", batch));
    }
    std::vector<std::vector<int64_t>> out;
    for (size_t b = 0; b < v.size(); ++b) {
      const auto p = ptr + "/" + std::to_string(b);
      if (!v[b].is_array() || static_cast<int64_t>(v[b].size()) != channels) {
        throw FieldError(p, fmt::format("expected a permutation of 0..{}", channels - 1));
      }
      std::vector<int64_t> row;
      std::vector<bool> seen(static_cast<size_t>(channels), false);
      for (size_t c = 0; c < v[b].size(); ++c) {
        const auto k = static_cast<int64_t>(read_number(v[b][c], p + "/" + std::to_string(c), 0, channels - 1));
        if (seen[static_cast<size_t>(k)]) throw FieldError(p, fmt::format("channel {} twice", k));
        seen[static_cast<size_t>(k)] = true;
        row.push_back(k);
      }
      out.push_back(row);
    }
    return out;
  }


  void draw(const NoSettings&, ObjectReader& r, c10::IntArrayRef shape, at::Generator& gen,
            nlohmann::json& out) const override {
    const int64_t batch = shape[0], channels = shape[1];
    const auto gate = random_draws::RandomGate::read(r, batch, gen, {&kPermutation}, /*with_same=*/false);
    std::vector<std::vector<int64_t>> perms;
    const auto drawn = at::rand({batch, channels}, gen).argsort(int64_t{1});
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<int64_t> row;
      for (int64_t c = 0; c < channels; ++c) row.push_back(drawn[b][c].item<int64_t>());
      perms.push_back(row);
    }
    if (const auto* v = r.get(kPermutation.name); v != nullptr) {
      perms = read_permutations(*v, r.pointer(kPermutation.name), batch, channels);
    }
    out[kPermutation.name] = perms;
    gate.write(out, /*with_same=*/false);
  }
};

// rgb_shift's limits, one per channel, on an RGB input.
struct ShiftLimits : DeclaredFields<ShiftLimits> {
  double limits[3] = {kDefaultLimit, kDefaultLimit, kDefaultLimit};
  static void declare(Fields<ShiftLimits>& f) {
    for (size_t c = 0; c < 3; ++c) {
      const char* key = kLimits[c].key;
      f.field({key, "number in [0, 1]", "0.5", kLimits[c].meaning},
              [key, c](ObjectReader& r, ShiftLimits& s) { s.limits[c] = r.number(key, kDefaultLimit, 0.0, 1.0); },
              [key, c](const ShiftLimits& s, nlohmann::json& out) { out[key] = s.limits[c]; });
    }
  }
  void check(c10::IntArrayRef shape) const { require_rgb(shape, "rgb_shift"); }
};

class RgbShift final : public RandomTransform<ShiftLimits> {
 public:
  RgbShift()
      : RandomTransform(
            Describe("rgb_shift", "color",
                     "Kornia's RandomRGBShift: a random offset per channel and sample, clamped to [0, 1]")
                .params(random_draws::RandomGate::docs(true, "explicit gate"))
                .params({kShifts.doc()})
                .dtypes(kFloatDtypes)
                .differentiable()) {}

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params) const override {
    DEVPARITY_TRACE_SCOPE("rgb_shift");
    require_rgb(x.sizes(), info_.name);
    const auto shifts = read_shifts(params.at("shifts"), "/shifts", x.size(0));
    const auto apply = params.at("apply").get<std::vector<bool>>();
    // (B, 3, 1, 1) offsets filled on the device; gated-off samples shift by 0
    // and skip the clamp, so they come back unchanged.
    auto offsets = at::zeros({x.size(0), 3}, x.options());
    auto gate = at::zeros({x.size(0), 1, 1, 1}, x.options().dtype(at::kBool));
    for (int64_t b = 0; b < x.size(0); ++b) {
      if (!apply[static_cast<size_t>(b)]) continue;
      gate.narrow(0, b, 1).fill_(true);
      for (int64_t c = 0; c < 3; ++c) offsets.narrow(0, b, 1).narrow(1, c, 1).fill_(shifts[b][c]);
    }
    const auto shifted = (x + offsets.reshape({-1, 3, 1, 1})).clamp(0.0, 1.0);
    return image::choose(gate, shifted, x);
  }

 private:
  static std::vector<std::vector<double>> read_shifts(const nlohmann::json& v, const std::string& ptr, int64_t batch) {
    if (!v.is_array() || static_cast<int64_t>(v.size()) != batch) {
      throw FieldError(ptr, fmt::format("expected one [r, g, b] per sample ({})", batch));
    }
    std::vector<std::vector<double>> out;
    for (size_t b = 0; b < v.size(); ++b) {
      const auto pb = ptr + "/" + std::to_string(b);
      if (!v[b].is_array() || v[b].size() != 3) throw FieldError(pb, "expected [r, g, b]");
      out.push_back({read_number(v[b][0], pb + "/0", -1, 1), read_number(v[b][1], pb + "/1", -1, 1),
                     read_number(v[b][2], pb + "/2", -1, 1)});
    }
    return out;
  }


  void draw(const ShiftLimits& settings, ObjectReader& r, c10::IntArrayRef shape, at::Generator& gen,
            nlohmann::json& out) const override {
    const int64_t batch = shape[0];
    const auto& limits = settings.limits;
    const auto gate = random_draws::RandomGate::read(r, batch, gen, {&kShifts});
    const bool same = gate.same_on_batch;
    std::vector<std::vector<double>> shifts(static_cast<size_t>(batch), std::vector<double>(3));
    for (int c = 0; c < 3; ++c) {
      const auto drawn = random_draws::uniform(gen, batch, static_cast<float>(-limits[c]), static_cast<float>(limits[c]), same);
      for (int64_t b = 0; b < batch; ++b) shifts[static_cast<size_t>(b)][static_cast<size_t>(c)] = drawn[static_cast<size_t>(b)];
    }
    if (const auto* v = r.get(kShifts.name); v != nullptr) shifts = read_shifts(*v, r.pointer(kShifts.name), batch);
    out[kShifts.name] = shifts;
    gate.write(out);
  }
};

}  // namespace

void register_random_color(TransformRegistry& registry) {
  registry.add(std::make_unique<ColorJitter>());
  registry.add(std::make_unique<ChannelShuffle>());
  registry.add(std::make_unique<RgbShift>());
}

}  // namespace devparity
