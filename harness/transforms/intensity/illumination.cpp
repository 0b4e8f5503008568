// The intensity family (Kornia's augmentation/_2d/intensity): planckian_jitter
// and gaussian_illumination, the two augmentations behind kornia/kornia#2791
// (a coefficient table left on cuda:0) and #3028 (a gradient image built on
// the CPU). Numbers and draw order: ../shared/spec/kornia-transforms.md §0-2.
//
// Both draw their parameters in sample(), on the CPU, with Kornia's calls in
// Kornia's order (transforms/random/draws.h), and write every drawn value into
// the parameters, so that apply() is pure tensor code that replays them on
// any device. Explicit per-sample values given to sample() replace the draws.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/base/rounding.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/state.h"
#include "harness/subject/stateful_image.h"
#include "harness/subject/transform_registry.h"
#include "harness/trace/scope.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/random/draws.h"
#include "harness/transforms/random/random_transform.h"

#include <ATen/ATen.h>
#include <cctype>
#include <optional>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace devparity {
namespace {

// Per-sample selection: samples whose gate is off keep their input exactly.
at::Tensor blend(const at::Tensor& input, const at::Tensor& transformed, const std::vector<bool>& apply) {
  bool all = true, none = true;
  for (bool a : apply) {
    all = all && a;
    none = none && !a;
  }
  if (all) return transformed;
  if (none) return input.clone();
  std::vector<at::Tensor> rows;
  for (size_t b = 0; b < apply.size(); ++b) {
    rows.push_back((apply[b] ? transformed : input).narrow(0, static_cast<int64_t>(b), 1));
  }
  return at::cat(rows, 0);
}

// The gate's parameters, which both transforms here take.
std::vector<ParamDoc> gate_docs() {
  return random_draws::RandomGate::docs(true,
                                        "explicit gate; replaces the p draw (all true when explicit values are given)");
}

std::vector<bool> apply_flags(const nlohmann::json& params) {
  return params.at("apply").get<std::vector<bool>>();
}

// ---------------------------------------------------------------- planckian

// Chromaticity (R, G, B) of the illuminants, from the spec.
const float kBlackbody[25][3] = {
    {.6743f, .4029f, .0013f}, {.6281f, .4241f, .1665f}, {.5919f, .4372f, .2513f},
    {.5623f, .4457f, .3154f}, {.5376f, .4515f, .3672f}, {.5163f, .4555f, .4103f},
    {.4979f, .4584f, .4468f}, {.4816f, .4604f, .4782f}, {.4672f, .4619f, .5053f},
    {.4542f, .4630f, .5289f}, {.4426f, .4638f, .5497f}, {.4320f, .4644f, .5681f},
    {.4223f, .4648f, .5844f}, {.4135f, .4651f, .5990f}, {.4054f, .4653f, .6121f},
    {.3980f, .4654f, .6239f}, {.3911f, .4655f, .6346f}, {.3847f, .4656f, .6444f},
    {.3787f, .4656f, .6532f}, {.3732f, .4656f, .6613f}, {.3680f, .4655f, .6688f},
    {.3632f, .4655f, .6756f}, {.3586f, .4655f, .6820f}, {.3544f, .4654f, .6878f},
    {.3503f, .4653f, .6933f}};
const float kCied[23][3] = {
    {.5829f, .4421f, .2288f}, {.5510f, .4514f, .2948f}, {.5246f, .4576f, .3488f},
    {.5021f, .4618f, .3941f}, {.4826f, .4646f, .4325f}, {.4654f, .4667f, .4654f},
    {.4502f, .4681f, .4938f}, {.4364f, .4692f, .5186f}, {.4240f, .4700f, .5403f},
    {.4127f, .4705f, .5594f}, {.4023f, .4709f, .5763f}, {.3928f, .4713f, .5914f},
    {.3839f, .4715f, .6049f}, {.3757f, .4716f, .6171f}, {.3681f, .4717f, .6281f},
    {.3609f, .4718f, .6380f}, {.3543f, .4719f, .6472f}, {.3480f, .4719f, .6555f},
    {.3421f, .4719f, .6631f}, {.3365f, .4719f, .6702f}, {.3313f, .4719f, .6766f},
    {.3263f, .4719f, .6826f}, {.3217f, .4719f, .6882f}};

// The illuminant tables, by the names Kornia's `mode` takes.
enum class Illuminant { kBlackbody, kCied };

const char* name_of(Illuminant mode) { return mode == Illuminant::kBlackbody ? "blackbody" : "CIED"; }

int64_t table_rows(Illuminant mode) { return mode == Illuminant::kBlackbody ? 25 : 23; }

// (N, 2) float32 [R/G, B/G] on the CPU, the division in float32, rows
// reordered by select_from when given.
at::Tensor planckian_table(Illuminant mode, const std::vector<int64_t>& select_from) {
  const bool blackbody = mode == Illuminant::kBlackbody;
  const int64_t n = table_rows(mode);
  auto rgb = at::empty({n, 3}, at::TensorOptions().dtype(at::kFloat));
  auto* p = rgb.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t c = 0; c < 3; ++c) p[i * 3 + c] = blackbody ? kBlackbody[i][c] : kCied[i][c];
  }
  auto table = at::stack({rgb.select(1, 0) / rgb.select(1, 1), rgb.select(1, 2) / rgb.select(1, 1)}, 1);
  if (select_from.empty()) return table;
  std::vector<at::Tensor> rows;
  for (auto i : select_from) rows.push_back(table.narrow(0, i, 1));
  return at::cat(rows, 0);
}

Illuminant read_mode(ObjectReader& reader) {
  const auto* v = reader.get("mode");
  if (v == nullptr) return Illuminant::kBlackbody;
  if (v->is_string()) {
    std::string m = v->get<std::string>();
    std::string lower = m, upper = m;
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    // Kornia: mode.lower() == "blackbody", mode.upper() == "CIED".
    if (lower == "blackbody") return Illuminant::kBlackbody;
    if (upper == "CIED") return Illuminant::kCied;
  }
  throw FieldError(reader.pointer("mode"),
                   fmt::format("expected \"blackbody\" or \"CIED\", got {}", describe_json(*v)));
}

std::vector<int64_t> read_select_from(ObjectReader& reader, Illuminant mode) {
  const auto* v = reader.get("select_from");
  if (v == nullptr || v->is_null()) return {};
  const int64_t n = table_rows(mode);
  if (v->is_number()) return {reader.integer("select_from", 0, 0, n - 1)};
  return reader.integers("select_from", 0, 0, n - 1);
}

// The explicit rows; the bound is the table's (or select_from's) last row.
const random_draws::PerSample kIdx{"idx", "[integer per sample]",
                                   "explicit rows (after select_from); replaces the draw"};

// The illuminant table and its rows: the settings and the registered state's recipe.
struct PlanckianSettings : DeclaredFields<PlanckianSettings> {
  Illuminant mode = Illuminant::kBlackbody;
  std::vector<int64_t> select_from;  // empty: every row
  static void declare(Fields<PlanckianSettings>& f) {
    // Kornia's mode is case-insensitive: no plain choice.
    f.field({"mode", "blackbody|CIED", "\"blackbody\"", "illuminant table (25 or 23 rows)"},
            [](ObjectReader& r, PlanckianSettings& s) { s.mode = read_mode(r); },
            [](const PlanckianSettings& s, nlohmann::json& out) { out["mode"] = name_of(s.mode); })
        .field({"select_from", "integer or [integers]", "null", "rows to draw from, in this order"},
               [](ObjectReader& r, PlanckianSettings& s) { s.select_from = read_select_from(r, s.mode); },
               [](const PlanckianSettings& s, nlohmann::json& out) {
                 out["select_from"] = s.select_from.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.select_from);
               });
  }
  void check(c10::IntArrayRef shape) const { require_rgb(shape, "planckian_jitter"); }
};

class PlanckianJitter final : public RandomTransform<PlanckianSettings, StatefulImageTransform> {
 public:
  PlanckianJitter()
      : RandomTransform(
            Describe("planckian_jitter", "intensity",
                     "Kornia's RandomPlanckianJitter: scale R and B by the chromaticity ratios of a random "
                     "illuminant; the table is registered state")
                .params({kIdx.doc()})
                .params(gate_docs())
                .dtypes(kImageDtypes)
                .differentiable()) {}

  std::unique_ptr<TransformState> make_state(const nlohmann::json& params) const override {
    ObjectReader r(params);
    const auto settings = PlanckianSettings::read(r);
    auto state = std::make_unique<TransformState>();
    state->register_tensor("pl", planckian_table(settings.mode, settings.select_from));
    return state;
  }

  at::Tensor run(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const override {
    const auto idx = params.at("idx").get<std::vector<int64_t>>();
    TORCH_CHECK(x.size(1) == 3 && static_cast<int64_t>(idx.size()) == x.size(0),
                "planckian_jitter: parameters for ", idx.size(), " samples, input ", x.sizes());
    // Kornia moves the table to the input on every call as well (a no-op
    // once the state followed the subject).
    const auto table = state.tensor("pl").to(x.device());
    std::vector<at::Tensor> rows;
    for (auto i : idx) rows.push_back(table.narrow(0, i, 1));
    const auto coeffs = at::cat(rows, 0);  // (B, 2) float32, rows picked without a host sync
    // Per-channel weights (R/G, 1, B/G): one broadcast multiply, so backward
    // is one multiply too instead of a select_backward per channel. G * 1 is
    // exact, so this is the spec's "G unchanged".
    const auto weights = at::cat({coeffs.narrow(1, 0, 1), at::ones({coeffs.size(0), 1}, coeffs.options()),
                                  coeffs.narrow(1, 1, 1)},
                                 1)
                             .reshape({-1, 3, 1, 1});
    at::Tensor out;
    if (x.scalar_type() == at::kByte) {
      // Note [uint8 planckian]: one float32 multiply per value, rounded half
      // to even and saturated: a single correctly rounded operation, so equal
      // on every device.
      const auto scaled = x.to(at::kFloat) * weights;
      out = note_unrounded(at::round(scaled).clamp(0, 255).to(at::kByte), scaled, Rounding::kHalfEven);
    } else {
      // Only an upper clamp: negative inputs pass through, as in Kornia.
      out = (x * weights).clamp_max(1.0).to(x.scalar_type());
    }
    return blend(x, out, apply_flags(params));
  }

 private:
  void draw(const PlanckianSettings& settings, ObjectReader& r, c10::IntArrayRef shape, at::Generator& gen,
            nlohmann::json& out) const override {
    const int64_t batch = shape[0];
    const auto& select_from = settings.select_from;
    const int64_t rows =
        select_from.empty() ? table_rows(settings.mode) : static_cast<int64_t>(select_from.size());
    // Kornia draws the gate first, then the parameters for the whole batch.
    const auto gate = random_draws::RandomGate::read(r, batch, gen, {&kIdx});
    const bool same = gate.same_on_batch;
    std::vector<int64_t> idx;
    auto rows_here = kIdx;
    rows_here.max = static_cast<double>(rows - 1);
    if (const auto explicit_idx = rows_here.read(r, batch)) {
      for (double v : *explicit_idx) {
        if (v != static_cast<double>(static_cast<int64_t>(v))) {
          throw FieldError(r.pointer(kIdx.name), "expected integer rows");
        }
        idx.push_back(static_cast<int64_t>(v));
      }
    } else {
      // idx = long(U(0, N)): truncation of the float32 draw.
      for (float u : random_draws::uniform(gen, batch, 0.0f, static_cast<float>(rows), same)) {
        idx.push_back(static_cast<int64_t>(u));
      }
    }
    out[kIdx.name] = idx;
    gate.write(out);
  }
};

// ---------------------------------------------------------------- illumination

// One (sy, sx) or (cy, cx) pair per sample: a number means the same for both.
std::optional<std::vector<std::pair<double, double>>> read_pairs(ObjectReader& r,
                                                                 const std::string& key,
                                                                 int64_t batch) {
  const auto* v = r.get(key);
  if (v == nullptr) return std::nullopt;
  const auto ptr = r.pointer(key);
  auto pair = [&](const nlohmann::json& e, const std::string& p) {
    if (e.is_array() && e.size() == 2) {
      return std::make_pair(read_number(e[0], p + "/0", 0.0, 1.0), read_number(e[1], p + "/1", 0.0, 1.0));
    }
    const double x = read_number(e, p, 0.0, 1.0);
    return std::make_pair(x, x);
  };
  // One value for every sample: a number, or a list of one.
  if (v->is_number()) return std::vector<std::pair<double, double>>(static_cast<size_t>(batch), pair(*v, ptr));
  if (!v->is_array() || (v->size() != 1 && static_cast<int64_t>(v->size()) != batch)) {
    throw FieldError(ptr, fmt::format("expected one value or [y, x] pair per sample ({}), or one "
                                      "for all, got {}", batch, describe_json(*v)));
  }
  std::vector<std::pair<double, double>> out;
  for (size_t i = 0; i < v->size(); ++i) out.push_back(pair((*v)[i], ptr + "/" + std::to_string(i)));
  if (out.size() == 1) out.resize(static_cast<size_t>(batch), out[0]);
  return out;
}

// Kornia's gaussian(window, sigma, mean): the +0.5 shift for even windows,
// normalised to sum 1, in float32 on the input's device.
at::Tensor gaussian_window(int64_t window, const at::Tensor& sigma, const at::Tensor& mean,
                           const at::TensorOptions& options) {
  auto x = at::arange(window, options) - mean;
  if (window % 2 == 0) x = x + 0.5;
  const auto g = at::exp(-x.pow(2.0) / (2 * sigma.pow(2.0)));
  return g / g.sum(-1, true);
}

// Gaussian illumination's draw ranges, declared once.
const random_draws::DrawRange kGainRange{"gain_range", {0.01, 0.15}, 0.0, 1.0, "gain draw range"};
const random_draws::DrawRange kCenterRange{"center_range", {0.1, 0.9}, 0.0, 1.0,
                                           "centre draw range, a fraction of the size"};
const random_draws::DrawRange kSigmaRange{"sigma_range", {0.2, 1.0}, 0.0, 1.0,
                                          "sigma draw range, a fraction of the size"};
const random_draws::DrawRange kSignRange{"sign_range", {-1.0, 1.0}, -1.0, 1.0, "draws >= 0 brighten"};
// ... and its explicit values, each replacing its draw.
const random_draws::PerSample kGain{"gain", "[number per sample]", "explicit gains", 0.0, 1.0};
const random_draws::PerSample kCenter{"center", "[number or [cy, cx] per sample]", "explicit centres (fractions)"};
const random_draws::PerSample kSigma{"sigma", "[number or [sy, sx] per sample]", "explicit sigmas (fractions)"};
const random_draws::PerSample kSign{"sign", "[number per sample]", "explicit signs (>= 0: +1, else -1)", -1.0, 1.0};

// ... and the ranges as the transform's settings.
struct IlluminationRanges : DeclaredFields<IlluminationRanges> {
  std::pair<double, double> gain, center, sigma, sign;
  static void declare(Fields<IlluminationRanges>& f) {
    f.declared(kGainRange, &IlluminationRanges::gain)
        .declared(kCenterRange, &IlluminationRanges::center)
        .declared(kSigmaRange, &IlluminationRanges::sigma)
        .declared(kSignRange, &IlluminationRanges::sign);
  }
};

class GaussianIllumination final : public RandomTransform<IlluminationRanges> {
 public:
  GaussianIllumination()
      : RandomTransform(
            Describe("gaussian_illumination", "intensity",
                     "Kornia's RandomGaussianIllumination: add a signed Gaussian light spot, built on the "
                     "input's device")
                .params(random_draws::docs({&kGain, &kCenter, &kSigma, &kSign}))
                .params(gate_docs())
                .dtypes(kImageDtypes)
                .differentiable()) {}

  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params) const override {
    DEVPARITY_TRACE_SCOPE("gaussian_illumination");
    require_nchw(x.sizes(), info_.name);
    if (x.size(0) == 0) return x.clone();  // an empty batch: nothing to transform
    const int64_t batch = x.size(0), h = x.size(2), w = x.size(3);
    const auto gain = params.at("gain").get<std::vector<double>>();
    const auto center = params.at("center").get<std::vector<std::vector<double>>>();
    const auto sigma = params.at("sigma").get<std::vector<std::vector<double>>>();
    const auto sign = params.at("sign").get<std::vector<double>>();
    TORCH_CHECK(static_cast<int64_t>(gain.size()) == batch, "gaussian_illumination: parameters for ",
                gain.size(), " samples, input ", x.sizes());
    // The generator's dtype (float32), on the input's device: the fix of
    // kornia/kornia#3028 is to build this here and not on the CPU.
    const auto f32 = x.options().dtype(at::kFloat);
    std::vector<at::Tensor> images;
    for (int64_t b = 0; b < batch; ++b) {
      DEVPARITY_TRACE_SCOPE("gradient");
      auto scalar = [&](double v) { return at::full({1, 1}, v, f32); };
      const auto sigma_x = scalar(sigma[b][1]) * static_cast<double>(w);
      const auto center_x = at::round(scalar(center[b][1]) * static_cast<double>(w));
      const auto sigma_y = scalar(sigma[b][0]) * static_cast<double>(h);
      const auto center_y = at::round(scalar(center[b][0]) * static_cast<double>(h));
      const auto gx = gaussian_window(w, sigma_x, center_x, f32);  // (1, W)
      const auto gy = gaussian_window(h, sigma_y, center_y, f32);  // (1, H)
      const auto g = gy.reshape({h, 1}) * gx;                       // (H, W)
      // normalize_min_max with Kornia's eps: the peak stays just below 1.
      const auto lo = g.amin(), hi = g.amax();
      const auto normalised = (g - lo) / (hi - lo + 1e-6);
      images.push_back((normalised * (sign[b] * gain[b])).unsqueeze(0));
    }
    const auto gradient = at::stack(images, 0);  // (B, 1, H, W), broadcast over channels
    at::Tensor out;
    if (x.scalar_type() == at::kByte) {
      const auto lit = (x.to(at::kFloat) / 255.0 + gradient).clamp(0.0, 1.0);
      const auto scaled = lit * 255.0;
      out = note_unrounded(at::round(scaled).to(at::kByte), scaled, Rounding::kHalfEven);
    } else {
      out = (x + gradient.to(x.scalar_type())).clamp(0.0, 1.0);
    }
    return blend(x, out, apply_flags(params));
  }


 private:
  void draw(const IlluminationRanges& ranges, ObjectReader& r, c10::IntArrayRef shape, at::Generator& gen,
            nlohmann::json& out) const override {
    const int64_t batch = shape[0];
    const auto gate = random_draws::RandomGate::read(r, batch, gen, {&kGain, &kCenter, &kSigma, &kSign});
    const bool same = gate.same_on_batch;
    auto uniform = [&](std::pair<double, double> range) {
      const auto v = random_draws::uniform(gen, batch, static_cast<float>(range.first),
                                       static_cast<float>(range.second), same);
      return std::vector<double>(v.begin(), v.end());
    };
    // Kornia's draw order: gain, sigma x, center x, sigma y, center y, sign.
    auto gain = kGain.read(r, batch);
    if (!gain) gain = uniform(ranges.gain);
    auto sigma = read_pairs(r, kSigma.name, batch);
    auto center = read_pairs(r, kCenter.name, batch);
    if (!sigma || !center) {
      const auto sx = uniform(ranges.sigma);
      const auto cx = uniform(ranges.center);
      const auto sy = uniform(ranges.sigma);
      const auto cy = uniform(ranges.center);
      std::vector<std::pair<double, double>> s, c;
      for (int64_t b = 0; b < batch; ++b) {
        s.emplace_back(sy[b], sx[b]);
        c.emplace_back(cy[b], cx[b]);
      }
      if (!sigma) sigma = s;
      if (!center) center = c;
    }
    auto sign = kSign.read(r, batch);
    if (!sign) sign = uniform(ranges.sign);
    for (auto& s : *sign) s = s >= 0.0 ? 1.0 : -1.0;
    auto pairs = [](const std::vector<std::pair<double, double>>& v) {
      auto out = nlohmann::json::array();
      for (const auto& [a, b] : v) out.push_back({a, b});
      return out;
    };
    out[kGain.name] = *gain;
    out[kCenter.name] = pairs(*center);
    out[kSigma.name] = pairs(*sigma);
    out[kSign.name] = *sign;
    gate.write(out);
  }
};

}  // namespace

void register_illumination(TransformRegistry& registry) {
  registry.add(std::make_unique<PlanckianJitter>());
  registry.add(std::make_unique<GaussianIllumination>());
}

}  // namespace devparity
