#include "harness/suite/inputs.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/input_file.h"
#include "harness/base/json_reader.h"
#include "harness/base/png.h"
#include "harness/base/text.h"

#include "harness/jpeg/decode.h"
#include "harness/subject/layout.h"
#include "harness/subject/seeded_noise.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>

#include <algorithm>
#include <cmath>
#include <functional>

namespace devparity {
namespace {

// Every pattern is a function of (plane, y, x) -> value in [0, 1]; noise draws
// from the generator instead. `plane` is n * C + c.
using PatternFn = std::function<double(int64_t plane, int64_t c, int64_t y, int64_t x)>;

PatternFn pattern_fn(const InputRecipe& r, int64_t height, int64_t width) {
  if (r.pattern == "ramp") {
    const double hy = height > 1 ? static_cast<double>(height - 1) : 1.0;
    const double wx = width > 1 ? static_cast<double>(width - 1) : 1.0;
    // A diagonal ramp; odd channels run the other way so channels differ.
    return [=](int64_t, int64_t c, int64_t y, int64_t x) {
      const double t = 0.5 * (static_cast<double>(y) / hy + static_cast<double>(x) / wx);
      return c % 2 == 0 ? t : 1.0 - t;
    };
  }
  if (r.pattern == "checkerboard") {
    const int64_t cell = r.cell;
    return [=](int64_t, int64_t, int64_t y, int64_t x) {
      return ((y / cell + x / cell) % 2 == 0) ? 0.0 : 1.0;
    };
  }
  if (r.pattern == "constant") {
    const double value = r.value;
    return [=](int64_t, int64_t, int64_t, int64_t) { return value; };
  }
  if (r.pattern == "edges") {
    // Four levels in bands that step along both axes: every edge is a hard
    // step, horizontal, vertical, and where bands meet, corners.
    static const double levels[] = {0.0, 1.0, 0.25, 0.75};
    return [=](int64_t, int64_t c, int64_t y, int64_t x) {
      const int64_t band = (x * 4) / std::max<int64_t>(width, 1) +
                           (y * 3) / std::max<int64_t>(height, 1) + c;
      return levels[band % 4];
    };
  }
  return nullptr;
}

template <typename T>
void fill(T* data, const InputRecipe& r, c10::ScalarType dtype, int64_t planes, int64_t channels, int64_t height,
          int64_t width) {
  const bool is_byte = dtype == c10::ScalarType::Byte;
  const auto fn = pattern_fn(r, height, width);
  int64_t i = 0;
  for (int64_t p = 0; p < planes; ++p) {
    const int64_t c = p % channels;
    for (int64_t y = 0; y < height; ++y) {
      for (int64_t x = 0; x < width; ++x, ++i) {
        const double v = std::clamp(fn(p, c, y, x), 0.0, 1.0);
        data[i] = is_byte ? static_cast<T>(std::nearbyint(v * 255.0)) : static_cast<T>(v);
      }
    }
  }
}

// NaN, +Inf and -Inf at fixed positions, so every device sees the same ones
// (uint8 has none: plain noise).
void sprinkle_nonfinite(at::Tensor& out) {
  if (out.scalar_type() == c10::ScalarType::Byte) return;
  auto flat = out.view({-1});
  const auto n = flat.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (i % 7 == 3) flat[i] = std::numeric_limits<double>::quiet_NaN();
    else if (i % 11 == 5) flat[i] = std::numeric_limits<double>::infinity();
    else if (i % 13 == 8) flat[i] = -std::numeric_limits<double>::infinity();
  }
}

bool ends_with(const std::string& text, const std::string& tail) {
  if (text.size() < tail.size()) return false;
  return std::equal(tail.rbegin(), tail.rend(), text.rbegin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}

}  // namespace

std::string InputRecipe::label() const {
  const std::string suffix = layout == "contiguous" ? "" : "-" + layout;
  if (!tensor.empty()) return "tensor-" + tensor + "-" + join_shape(shape) + suffix;
  if (!file.empty()) return "file-" + file_stem_identifier(file, "-") + "-" + join_shape(shape) + suffix;
  return pattern + "-" + join_shape(shape) + suffix;
}

at::Tensor read_image_file(const std::string& path) {
  if (ends_with(path, ".png")) return read_png(path);
  if (!ends_with(path, ".jpg") && !ends_with(path, ".jpeg")) {
    throw InputError(fmt::format("{}: not an image devparity reads (.png, .jpg, .jpeg)", path));
  }
  const std::string bytes = read_input_file(path);
  const auto decoded = jpeg::decode_strict(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!decoded.ok) {
    throw InputError(fmt::format("{}: not a JPEG file libjpeg-turbo decodes cleanly: {} (byte {})", path,
                                 decoded.error, decoded.offset));
  }
  auto hwc = at::empty({decoded.height, decoded.width, decoded.components}, at::TensorOptions().dtype(at::kByte));
  std::memcpy(hwc.data_ptr<uint8_t>(), decoded.pixels.data(), decoded.pixels.size());
  return hwc.permute({2, 0, 1}).contiguous();
}

namespace {

std::mutex g_tensors_mutex;
std::map<std::string, at::Tensor>& registered_tensors() {
  static std::map<std::string, at::Tensor> tensors;
  return tensors;
}

at::Tensor registered_tensor(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_tensors_mutex);
  const auto it = registered_tensors().find(name);
  if (it == registered_tensors().end()) {
    throw InputError(fmt::format("no input tensor named '{}' is registered in this process (tensor "
                                 "inputs come from devparity.audit in Python)", name));
  }
  return it->second;
}

// A registered tensor on the image scale of `dtype` (uint8 0..255, floating 0..1).
at::Tensor convert_registered(const at::Tensor& t, c10::ScalarType dtype) {
  if (t.scalar_type() == dtype) return t.clone(at::MemoryFormat::Contiguous);
  const bool from_int = !at::isFloatingType(t.scalar_type());
  const bool to_int = !at::isFloatingType(dtype);
  if (from_int == to_int) return t.to(dtype).contiguous();
  if (to_int) return (t * 255.0).round().clamp(0, 255).to(dtype).contiguous();
  return (t.to(c10::ScalarType::Float) / 255.0).to(dtype).contiguous();
}

}  // namespace

void register_input_tensor(const std::string& name, const at::Tensor& tensor) {
  if (name.empty()) throw InputError("an input tensor needs a name");
  if (!tensor.defined() || tensor.dim() != 4) {
    throw InputError(fmt::format("input tensor '{}': expected an NCHW tensor of 4 dimensions, got {}", name,
                                 tensor.defined() ? join_shape(tensor.sizes().vec()) : "none"));
  }
  std::lock_guard<std::mutex> lock(g_tensors_mutex);
  registered_tensors()[name] = tensor.detach().to(at::kCPU).contiguous();
}

InputRecipe read_input_recipe(ObjectReader& r, const std::string& base_dir) {
  InputRecipe in;
  if (r.has("tensor")) {
    in.tensor = r.string("tensor", std::nullopt);
    in.pattern = "tensor";
    try {
      in.shape = registered_tensor(in.tensor).sizes().vec();
    } catch (const InputError& e) {
      throw FieldError(r.pointer("tensor"), e.what());
    }
    in.layout = r.string("layout", std::string("contiguous"), input_layouts());
    r.finish();
    return in;
  }
  if (r.has("file")) {
    const auto given = r.string("file", std::nullopt);
    in.file = given.empty() || given[0] == '/' || base_dir.empty() ? given : base_dir + "/" + given;
    in.layout = r.string("layout", std::string("contiguous"), input_layouts());
    for (const char* field : {"pattern", "shape", "value", "cell"}) {
      if (r.has(field)) {
        throw FieldError(r.pointer(field), fmt::format("'{}' does not go with 'file' (the file "
                                                       "gives the image)", field), true);
      }
    }
    try {
      const auto image = read_image_file(in.file);
      in.pattern = "file";
      in.shape = {1, image.size(0), image.size(1), image.size(2)};
    } catch (const InputError& e) {
      throw FieldError(r.pointer("file"), e.what());
    }
    r.finish();
    return in;
  }
  in.pattern = r.string("pattern", std::string("noise"), input_patterns());
  if (r.has("shape")) in.shape = r.integers("shape", 0, 0, 1 << 16);
  if (in.shape.size() != 4) {
    throw FieldError(r.pointer("shape"), fmt::format("expected an NCHW shape of 4 integers, got {}",
                                                     join_shape(in.shape)));
  }
  // A batch may be empty (N = 0); an image may not.
  for (size_t i = 1; i < 4; ++i) {
    if (in.shape[i] == 0) {
      throw FieldError(r.pointer("shape") + "/" + std::to_string(i),
                       "expected a positive size (only the batch, N, may be 0)");
    }
  }
  // At most 2^31 elements per input (8 GiB of float32): a typo like an extra
  // digit stops here, not in the allocator.
  int64_t numel = 1;
  for (auto d : in.shape) numel *= d;
  if (numel > (int64_t{1} << 31)) {
    throw FieldError(r.pointer("shape"), fmt::format("{} is {} elements; inputs are limited to 2^31 (2147483648)",
                                                     join_shape(in.shape), numel));
  }
  in.value = r.number("value", 0.5, 0.0, 1.0);
  in.cell = r.integer("cell", 4, 1, 1 << 16);
  in.layout = r.string("layout", std::string("contiguous"), input_layouts());
  r.finish();
  return in;
}

const std::vector<std::string>& input_patterns() {
  static const std::vector<std::string> names = {"noise", "ramp", "checkerboard", "constant",
                                                 "edges", "nonfinite"};
  return names;
}

at::Tensor make_input(const InputRecipe& r, c10::ScalarType dtype, uint64_t seed) {
  if (!r.tensor.empty()) return convert_registered(registered_tensor(r.tensor), dtype);
  if (!r.file.empty()) {
    const auto image = read_image_file(r.file).unsqueeze(0);
    if (dtype == c10::ScalarType::Byte) return image.contiguous();
    if (!is_floating(dtype)) {
      throw InputError(fmt::format("cannot make {} inputs from {} (supported: {})", dtype_name(dtype), r.file,
                                   known_dtype_names()));
    }
    return (image.to(c10::ScalarType::Float) / 255.0).to(dtype).contiguous();
  }
  const auto& names = input_patterns();
  if (std::find(names.begin(), names.end(), r.pattern) == names.end()) {
    throw InputError(fmt::format("unknown input pattern '{}' (known: {})", r.pattern,
                                 fmt::join(names, ", ")));
  }
  if (r.shape.size() < 2) {
    throw InputError(fmt::format("input shape {} needs at least two dimensions (H, W)",
                                 join_shape(r.shape)));
  }
  int64_t numel = 1;
  for (size_t i = 0; i < r.shape.size(); ++i) {
    const auto d = r.shape[i];
    // Only a leading batch dimension may be empty.
    if (d < 0 || (d == 0 && (i != 0 || r.shape.size() != 4))) {
      throw InputError(fmt::format("input shape {} has a non-positive dimension", join_shape(r.shape)));
    }
    numel *= d;
    if (numel > (int64_t{1} << 34)) {
      throw InputError(fmt::format("input shape {} is too large", join_shape(r.shape)));
    }
  }
  if (r.pattern == "checkerboard" && r.cell <= 0) {
    throw InputError("checkerboard cell must be positive");
  }
  if (r.pattern == "constant" && !(r.value >= 0.0 && r.value <= 1.0)) {
    throw InputError("constant value must be in [0, 1] (a fraction of the dtype's range)");
  }
  const int64_t width = r.shape[r.shape.size() - 1];
  const int64_t height = r.shape[r.shape.size() - 2];
  const int64_t channels = r.shape.size() >= 3 ? r.shape[r.shape.size() - 3] : 1;
  const int64_t planes = numel / (height * width);

  if (is_half_precision(dtype)) {
    // The float32 image, rounded: half precision inputs are what a pipeline's .half() makes.
    return make_input(r, c10::ScalarType::Float, seed).to(dtype).contiguous();
  }
  if (r.pattern == "noise" || r.pattern == "nonfinite") {
    auto out = seeded_noise(r.shape, dtype, seed);
    if (r.pattern == "nonfinite") sprinkle_nonfinite(out);
    return out;
  }
  auto out = at::empty(r.shape, at::TensorOptions().dtype(dtype).device(at::kCPU));
  switch (dtype) {
    case c10::ScalarType::Byte:
      fill(out.data_ptr<uint8_t>(), r, dtype, planes, channels, height, width);
      break;
    case c10::ScalarType::Float:
      fill(out.data_ptr<float>(), r, dtype, planes, channels, height, width);
      break;
    case c10::ScalarType::Double:
      fill(out.data_ptr<double>(), r, dtype, planes, channels, height, width);
      break;
    default:
      throw InputError(fmt::format("cannot generate {} inputs (supported: {})", dtype_name(dtype), known_dtype_names()));
  }
  return out;
}

// A recipe as the layers below the suite see it.
class RecipeSource final : public InputSource {
 public:
  explicit RecipeSource(InputRecipe recipe) : recipe_(std::move(recipe)) {}
  at::Tensor make(c10::ScalarType dtype, uint64_t seed) const override { return make_input(recipe_, dtype, seed); }
  std::shared_ptr<const InputSource> with_shape(const std::vector<int64_t>& shape) const override {
    if (!recipe_.file.empty() || !recipe_.tensor.empty()) return std::make_shared<RecipeSource>(recipe_);
    auto reshaped = recipe_;
    reshaped.shape = shape;
    return std::make_shared<RecipeSource>(std::move(reshaped));
  }

 private:
  InputRecipe recipe_;
};

std::shared_ptr<const InputSource> input_source(const InputRecipe& recipe) {
  return std::make_shared<RecipeSource>(recipe);
}

DeclarationContext declaration_context(const std::string& base_dir) {
  DeclarationContext context;
  context.base_dir = base_dir;
  context.read_input = [base_dir](ObjectReader& reader) { return input_source(read_input_recipe(reader, base_dir)); };
  return context;
}

}  // namespace devparity
