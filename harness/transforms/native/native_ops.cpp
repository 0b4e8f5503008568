// Native LibTorch ops as subjects (native family, with interpolate.cpp), so
// that devparity audits LibTorch itself across devices: grid_sample with an
// affine grid, conv2d with seeded weights, avg_pool2d, and a Gaussian blur
// done the common way, as a depthwise conv2d. Tensors the ops need besides
// the image (theta, weights) are registered state, so they follow the subject
// to the device; the blur's kernel is built on the input's device.

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/subject/configured.h"
#include "harness/subject/describe.h"
#include "harness/subject/fields.h"
#include "harness/subject/seeded_noise.h"
#include "harness/subject/state.h"
#include "harness/subject/transform_registry.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/transforms/kernels/modes.h"
#include "harness/transforms/random/draws.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <mutex>

namespace devparity {
namespace {

// grid_sampler's modes and paddings, in the order of its integer codes.
const std::vector<Interpolation> kGridModes = {Interpolation::kBilinear, Interpolation::kNearest,
                                               Interpolation::kBicubic};
const std::vector<Padding> kGridPaddings = {Padding::kZeros, Padding::kBorder, Padding::kReflection};

template <typename Mode>
int64_t code_of(Mode mode, const std::vector<Mode>& codes) {
  return std::find(codes.begin(), codes.end(), mode) - codes.begin();
}

// A 4-D op's (height, width) pair: a number means both.
std::pair<int64_t, int64_t> read_pair(ObjectReader& r, const std::string& key, int64_t fallback,
                                      int64_t lo, int64_t hi) {
  const auto* v = r.get(key);
  if (v == nullptr) return {fallback, fallback};
  if (v->is_number_integer()) {
    const auto x = r.integer(key, std::nullopt, lo, hi);
    return {x, x};
  }
  const auto both = r.integers(key, 2, lo, hi);
  return {both[0], both[1]};
}

// A (height, width) pair field of a Fields<Config>, written as [h, w].
template <typename Config>
void pair_field(Fields<Config>& f, ParamDoc doc, std::pair<int64_t, int64_t> Config::*member,
                std::function<std::pair<int64_t, int64_t>(ObjectReader&, const Config&)> read) {
  const std::string key = doc.name;
  f.field(std::move(doc), [=](ObjectReader& r, Config& c) { c.*member = read(r, c); },
          [=](const Config& c, nlohmann::json& out) { out[key] = {(c.*member).first, (c.*member).second}; });
}

// A pair field with a fixed default, read as read_pair() reads it.
template <typename Config>
void pair_field(Fields<Config>& f, ParamDoc doc, std::pair<int64_t, int64_t> Config::*member, int64_t fallback,
                int64_t lo, int64_t hi) {
  const std::string key = doc.name;
  pair_field<Config>(f, std::move(doc), member,
                     [=](ObjectReader& r, const Config&) { return read_pair(r, key, fallback, lo, hi); });
}

// ---------------------------------------------------------------- grid_sample

// grid_sample's parameters, declared once.
struct GridSampleConfig : DeclaredFields<GridSampleConfig> {
  std::array<double, 6> theta = {0.9, -0.2, 0.05, 0.2, 0.9, -0.1};
  Interpolation mode = Interpolation::kBilinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;

  static void declare(Fields<GridSampleConfig>& f) {
    f.field({"theta", "[[a, b, c], [d, e, f]]", "[[0.9, -0.2, 0.05], [0.2, 0.9, -0.1]]",
             "the affine map from output to input coordinates in [-1, 1]"},
            [](ObjectReader& r, GridSampleConfig& c) {
              const auto* t = r.get("theta");
              if (t == nullptr) return;
              if (!t->is_array() || t->size() != 2) {
                throw FieldError("/theta", fmt::format("expected [[a, b, c], [d, e, f]], got {}", describe_json(*t)));
              }
              for (size_t row = 0; row < 2; ++row) {
                const auto p = "/theta/" + std::to_string(row);
                if (!(*t)[row].is_array() || (*t)[row].size() != 3) {
                  throw FieldError(p, fmt::format("expected a row of 3 numbers, got {}", describe_json((*t)[row])));
                }
                for (size_t col = 0; col < 3; ++col) {
                  c.theta[row * 3 + col] = read_number((*t)[row][col], p + "/" + std::to_string(col), -1e3, 1e3);
                }
              }
            },
            [](const GridSampleConfig& c, nlohmann::json& out) {
              const auto& t = c.theta;
              out["theta"] = {{t[0], t[1], t[2]}, {t[3], t[4], t[5]}};
            });
    mode_field(f, "mode", &GridSampleConfig::mode, Interpolation::kBilinear, kGridModes, "sampling");
    mode_field(f, "padding_mode", &GridSampleConfig::padding, Padding::kZeros, kGridPaddings, "outside the image")
        .boolean("align_corners", &GridSampleConfig::align_corners, false, "corner pixels' centres at -1 and 1");
  }
};

class GridSample final : public Described<StatefulTransform> {
 public:
  GridSample()
      : Described(Describe("grid_sample", "native",
                           "LibTorch's affine_grid_generator + grid_sampler_2d; theta is registered state")
                      .params(GridSampleConfig::fields().docs())
                      .dtypes(kFloatDtypes)
                      .differentiable()
                      .not_on_meta("grid_sampler_2d has no meta kernel in LibTorch 1.13")) {}

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape,
                        at::Generator&) const override {
    require_nchw(shape, info_.name);
    ObjectReader r(given);
    const auto c = GridSampleConfig::fields().read(r);
    r.finish();
    nlohmann::json out = nlohmann::json::object();
    GridSampleConfig::fields().write(c, out);
    return out;
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json& params) const override {
    auto theta = at::empty({1, 2, 3}, at::TensorOptions().dtype(at::kDouble));
    for (int64_t i = 0; i < 6; ++i) {
      theta.data_ptr<double>()[i] = params.at("theta").at(i / 3).at(i % 3).get<double>();
    }
    auto state = std::make_unique<TransformState>();
    state->register_tensor("theta", theta);
    return state;
  }

  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const override {
    ObjectReader r(params);
    const auto c = GridSampleConfig::fields().read(r);
    const auto mode = c.mode;
    const auto padding = c.padding;
    const bool align = c.align_corners;
    const auto theta = state.tensor("theta").to(x.scalar_type()).expand({x.size(0), 2, 3});
    const auto grid = at::affine_grid_generator(theta, x.sizes(), align);
    // grid_sampler's integer codes: the order of kGridModes and kGridPaddings.
    return at::grid_sampler(x, grid, code_of(mode, kGridModes), code_of(padding, kGridPaddings), align);
  }

};

// --------------------------------------------------------------------- conv2d

// conv2d's parameters that do not depend on the input, declared once (the
// channel counts and the weights' seed do).
struct ConvShape : DeclaredFields<ConvShape> {
  std::pair<int64_t, int64_t> kernel, stride, padding, dilation;
  int64_t groups = 1;
  bool bias = true;

  static void declare(Fields<ConvShape>& f) {
    pair_field<ConvShape>(f, {"kernel_size", "k or [kh, kw]", "3", "kernel size"}, &ConvShape::kernel, 3, 1, 63);
    pair_field<ConvShape>(f, {"stride", "s or [sh, sw]", "1", "stride"}, &ConvShape::stride, 1, 1, 64);
    pair_field<ConvShape>(f, {"padding", "p or [ph, pw]", "1", "zero padding"}, &ConvShape::padding, 1, 0, 64);
    pair_field<ConvShape>(f, {"dilation", "d or [dh, dw]", "1", "dilation"}, &ConvShape::dilation, 1, 1, 64);
    f.integer("groups", &ConvShape::groups, 1, 1, 4096, "integer dividing both channel counts", "groups");
    f.boolean("bias", &ConvShape::bias, true, "add a bias");
  }
};

const random_draws::DrawnSeed kWeightSeed{"weight_seed", "the weights and bias"};

class Conv2d final : public Described<StatefulTransform> {
 public:
  Conv2d()
      : Described(Describe("conv2d", "native", "LibTorch's conv2d with seeded weights and bias as registered state")
                      .param("out_channels", "integer >= 1", "the input's channels", "output channels")
                      .params(ConvShape::fields().docs())
                      .params({kWeightSeed.doc()})
                      .derived("in_channels", "integer", "the input's channels", "must match the input")
                      .dtypes(kFloatDtypes)
                      .random()  // the weights' seed
                      .differentiable()
                      .not_on_meta("convolution_overrideable has no meta kernel in LibTorch 1.13")) {}

  nlohmann::json sample(const nlohmann::json& given, c10::IntArrayRef shape,
                        at::Generator& generator) const override {
    require_nchw(shape, info_.name);
    ObjectReader r(given);
    nlohmann::json out;
    const auto in_channels = shape[1];
    out["out_channels"] = r.integer("out_channels", in_channels, 1, 4096);
    const auto conv = ConvShape::read(r);
    if (in_channels % conv.groups != 0 || out["out_channels"].get<int64_t>() % conv.groups != 0) {
      throw FieldError("/groups", fmt::format("groups {} must divide the input's {} channels and "
                                              "out_channels {}",
                                              conv.groups, in_channels, out["out_channels"].get<int64_t>()));
    }
    const auto reach_y = conv.dilation.first * (conv.kernel.first - 1) + 1;
    const auto reach_x = conv.dilation.second * (conv.kernel.second - 1) + 1;
    if (shape[2] + 2 * conv.padding.first < reach_y || shape[3] + 2 * conv.padding.second < reach_x) {
      throw InputError(fmt::format("conv2d: a {}x{} kernel (dilated) does not fit a {}x{} input with "
                                   "padding {}x{}",
                                   conv.kernel.first, conv.kernel.second, shape[2], shape[3], conv.padding.first,
                                   conv.padding.second));
    }
    conv.write(out);
    if (r.integer("in_channels", in_channels, 1) != in_channels) {
      throw FieldError("/in_channels", fmt::format("in_channels {} does not match the input's {} channels",
                                                   given.at("in_channels").dump(), in_channels));
    }
    out["in_channels"] = in_channels;
    out[kWeightSeed.name] = kWeightSeed.read(r, generator);
    r.finish();
    return out;
  }

  std::unique_ptr<TransformState> make_state(const nlohmann::json& p) const override {
    const auto out_channels = p.at("out_channels").get<int64_t>();
    const auto groups = p.at("groups").get<int64_t>();
    const auto k = p.at("kernel_size").get<std::vector<int64_t>>();
    const auto fan_in = p.at("in_channels").get<int64_t>() / groups * k[0] * k[1];
    const double scale = 2.0 / std::sqrt(static_cast<double>(fan_in));
    const auto seed = p.at(kWeightSeed.name).get<uint64_t>();
    const int64_t shape[] = {out_channels, p.at("in_channels").get<int64_t>() / groups, k[0], k[1]};
    auto state = std::make_unique<TransformState>();
    state->register_tensor("weight", (seeded_noise(shape, at::kDouble, seed) - 0.5) * scale);
    if (p.at("bias").get<bool>()) {
      state->register_tensor("bias", (seeded_noise({out_channels}, at::kDouble, seed + 1) - 0.5) * scale);
    }
    return state;
  }

  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& p, TransformState& state) const override {
    const auto weight = state.tensor("weight").to(x.scalar_type());
    at::Tensor bias;
    if (p.at("bias").get<bool>()) bias = state.tensor("bias").to(x.scalar_type());
    const auto stride = p.at("stride").get<std::vector<int64_t>>();
    const auto padding = p.at("padding").get<std::vector<int64_t>>();
    const auto dilation = p.at("dilation").get<std::vector<int64_t>>();
    return at::conv2d(x, weight, bias, stride, at::IntArrayRef(padding), dilation,
                      p.at("groups").get<int64_t>());
  }

};

// ----------------------------------------------------------------- avg_pool2d

struct PoolConfig : DeclaredFields<PoolConfig> {
  std::pair<int64_t, int64_t> kernel, stride, padding;
  bool ceil_mode = false;
  bool count_include_pad = true;

  static void declare(Fields<PoolConfig>& f) {
    pair_field<PoolConfig>(f, {"kernel_size", "k or [kh, kw]", "3", "window"}, &PoolConfig::kernel,
                           [](ObjectReader& r, const PoolConfig&) { return read_pair(r, "kernel_size", 3, 1, 255); });
    pair_field<PoolConfig>(f, {"stride", "s or [sh, sw]", "the kernel size", "step"}, &PoolConfig::stride,
                           [](ObjectReader& r, const PoolConfig& c) {
                             return r.has("stride") ? read_pair(r, "stride", 1, 1, 255) : c.kernel;
                           });
    pair_field<PoolConfig>(f, {"padding", "p or [ph, pw], at most half the kernel", "0", "implicit zero padding"},
                           &PoolConfig::padding, [](ObjectReader& r, const PoolConfig& c) {
                             const auto padding = read_pair(r, "padding", 0, 0, 127);
                             if (2 * padding.first > c.kernel.first || 2 * padding.second > c.kernel.second) {
                               throw FieldError("/padding",
                                                "padding must be at most half the kernel size (LibTorch's rule)");
                             }
                             return padding;
                           });
    f.boolean("ceil_mode", &PoolConfig::ceil_mode, false, "round the output size up")
        .boolean("count_include_pad", &PoolConfig::count_include_pad, true, "padding counts in the divisor");
  }
  void check(c10::IntArrayRef shape) const {
    if (shape[2] + 2 * padding.first < kernel.first || shape[3] + 2 * padding.second < kernel.second) {
      throw InputError(fmt::format("avg_pool2d: a {}x{} window does not fit a {}x{} input", kernel.first,
                                   kernel.second, shape[2], shape[3]));
    }
  }
};

class AvgPool2d final : public ConfiguredTransform<PoolConfig> {
 public:
  AvgPool2d()
      : ConfiguredTransform(
            Describe("avg_pool2d", "native", "LibTorch's avg_pool2d")
                .dtypes(kFloatDtypes)
                .differentiable()) {}

 private:
  at::Tensor run(const at::Tensor& x, const PoolConfig& c) const override {
    return at::avg_pool2d(x, {c.kernel.first, c.kernel.second}, {c.stride.first, c.stride.second},
                          {c.padding.first, c.padding.second}, c.ceil_mode, c.count_include_pad);
  }
};

// ------------------------------------------------------------------ conv_blur

struct ConvBlurConfig : DeclaredFields<ConvBlurConfig> {
  std::pair<int64_t, int64_t> kernel;
  std::pair<double, double> sigma;
  Border border = Border::kReflect;

  static void declare(Fields<ConvBlurConfig>& f) {
    pair_field<ConvBlurConfig>(f, {"kernel_size", "k or [ky, kx], odd", "5", "kernel size"}, &ConvBlurConfig::kernel,
                               [](ObjectReader& r, const ConvBlurConfig&) {
                                 const auto kernel = read_pair(r, "kernel_size", 5, 1, 255);
                                 if (kernel.first % 2 == 0 || kernel.second % 2 == 0) {
                                   throw FieldError("/kernel_size", "expected odd kernel sizes");
                                 }
                                 return kernel;
                               });
    f.field({"sigma", "s or [sy, sx]", "1.0", "standard deviations"},
            [](ObjectReader& r, ConvBlurConfig& c) {
              const auto* s = r.get("sigma");
              if (s != nullptr && s->is_number()) {
                const auto v = r.number("sigma", std::nullopt, 1e-3, 1e3);
                c.sigma = {v, v};
              } else if (s != nullptr) {
                const auto both = r.numbers("sigma", 2, 1e-3, 1e3);
                c.sigma = {both[0], both[1]};
              } else {
                c.sigma = {1.0, 1.0};
              }
            },
            [](const ConvBlurConfig& c, nlohmann::json& out) { out["sigma"] = {c.sigma.first, c.sigma.second}; });
    mode_field(f, "border", &ConvBlurConfig::border, Border::kReflect,
               {Border::kReflect, Border::kReplicate, Border::kConstant, Border::kCircular}, "padding");
  }
  void check(c10::IntArrayRef shape) const {
    if (border == Border::kReflect && (kernel.first / 2 >= shape[2] || kernel.second / 2 >= shape[3])) {
      throw InputError(fmt::format("conv_blur: reflect padding of {}x{} needs an input larger than that, "
                                   "got {}x{}",
                                   kernel.first / 2, kernel.second / 2, shape[2], shape[3]));
    }
  }
};

// Normalised 1-D Gaussian of `size` taps, made on `options`' device.
at::Tensor gaussian_taps(int64_t size, double sigma, const at::TensorOptions& options) {
  const auto x = at::arange(size, options) - static_cast<double>(size / 2);
  const auto w = at::exp(-(x * x) / (2.0 * sigma * sigma));
  return w / w.sum();
}

at::Tensor pad_circular(const at::Tensor& x, int64_t py, int64_t px) {
  const auto h = x.size(2), w = x.size(3);
  auto rows = at::cat({x.narrow(2, h - py, py), x, x.narrow(2, 0, py)}, 2);
  return at::cat({rows.narrow(3, w - px, px), rows, rows.narrow(3, 0, px)}, 3);
}

class ConvBlur final : public ConfiguredTransform<ConvBlurConfig> {
 public:
  ConvBlur()
      : ConfiguredTransform(
            Describe("conv_blur", "native",
                     "Gaussian blur the common way: pad, then a depthwise conv2d with the 2-D kernel")
                .dtypes(kFloatDtypes)
                .differentiable()
                .not_on_meta(
                    "convolution_overrideable and reflection_pad2d have no meta kernels in LibTorch 1.13")) {}

 private:
  at::Tensor run(const at::Tensor& x, const ConvBlurConfig& c) const override {
    const auto options = x.options();
    const auto ky = c.kernel.first, kx = c.kernel.second;
    const auto kernel2d = at::outer(gaussian_taps(ky, c.sigma.first, options),
                                    gaussian_taps(kx, c.sigma.second, options));
    const auto channels = x.size(1);
    const auto weight = kernel2d.expand({channels, 1, ky, kx}).contiguous();
    const auto py = ky / 2, px = kx / 2;
    at::Tensor padded;
    if (c.border == Border::kReflect) {
      padded = at::reflection_pad2d(x, {px, px, py, py});
    } else if (c.border == Border::kReplicate) {
      padded = at::replication_pad2d(x, {px, px, py, py});
    } else if (c.border == Border::kCircular) {
      padded = pad_circular(x, py, px);
    } else {
      padded = at::constant_pad_nd(x, {px, px, py, py}, 0.0);
    }
    const std::vector<int64_t> one = {1, 1}, zero = {0, 0};
    return at::conv2d(padded, weight, at::Tensor(), one, at::IntArrayRef(zero), one, channels);
  }
};

}  // namespace

void register_native_ops(TransformRegistry& registry) {
  registry.add(std::make_unique<GridSample>());
  registry.add(std::make_unique<Conv2d>());
  registry.add(std::make_unique<AvgPool2d>());
  registry.add(std::make_unique<ConvBlur>());
}

}  // namespace devparity
