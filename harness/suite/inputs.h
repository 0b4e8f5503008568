#pragma once
/// A case's inputs: seeded images generated on the CPU from a recipe (a
/// pattern, an image file, a tensor registered from Python). The bytes depend
/// only on the recipe, the dtype and the seed, never on the device or the
/// LibTorch version. The layers below see a recipe as an InputSource.

#include "harness/subject/input_source.h"
#include "harness/subject/subject_kind.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace devparity {

class ObjectReader;

/// How to make one input image.
struct InputRecipe {
  /// An image file (.png, .jpg/.jpeg) instead of a pattern; the shape is
  /// 1 x C x H x W from the file. Resolved path; empty for patterns.
  std::string file;
  /// A tensor of this process registered under this name
  /// (register_input_tensor(); Python's devparity.audit) instead of a
  /// pattern; the shape is the tensor's. Empty otherwise.
  std::string tensor;
  /// noise | ramp | checkerboard | constant | edges | nonfinite (noise with
  /// NaN, +Inf and -Inf sprinkled in; plain noise for uint8)
  std::string pattern = "noise";
  /// NCHW; the default is odd-sized on purpose (torchvision's 17x11).
  std::vector<int64_t> shape = {1, 3, 17, 11};
  /// constant: the value as a fraction of the dtype's range, in [0, 1].
  double value = 0.5;
  /// checkerboard: the side of one cell, in pixels.
  int64_t cell = 4;
  /// How the image lies in memory on the device (subject/layout.h).
  std::string layout = "contiguous";

  /// "noise-1x3x17x11" or "file-photo-1x3x480x640": names the input in result ids.
  std::string label() const;
};

/// Registers `tensor` (any device, NCHW) as the in-process input `name`,
/// replacing one of that name; suites built in this process declare it as
/// {"tensor": name}. Kept on the CPU.
void register_input_tensor(const std::string& name, const at::Tensor& tensor);

/// The pattern names make_input() knows.
const std::vector<std::string>& input_patterns();

/// Makes the image on the CPU, contiguous. uint8 values cover 0..255, floating
/// values [0, 1]; a registered tensor is converted to `dtype` on that scale. Throws InputError for an unknown pattern, a bad shape or an
/// unsupported dtype.
at::Tensor make_input(const InputRecipe& recipe, c10::ScalarType dtype, uint64_t seed);

/// Reads a recipe from a case file: {"pattern", "shape", "value", "cell"},
/// {"file"} (relative to `base_dir`; read once here for its shape) or
/// {"tensor"} (registered in this process). Throws
/// FieldError at the field that is wrong.
InputRecipe read_input_recipe(ObjectReader& reader, const std::string& base_dir);

/// `recipe` as an InputSource (make_input() with it).
std::shared_ptr<const InputSource> input_source(const InputRecipe& recipe);

/// What a subject declaration in a case file under `base_dir` may refer to:
/// the folder, and input recipes read as read_input_recipe() reads a case's.
DeclarationContext declaration_context(const std::string& base_dir);

/// An 8-bit PNG or baseline/progressive JPEG as a CHW uint8 tensor (grey or
/// RGB). Throws InputError naming the file and what was wrong.
at::Tensor read_image_file(const std::string& path);

}  // namespace devparity
