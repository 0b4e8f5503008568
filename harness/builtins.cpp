#include "harness/builtins.h"

#include "harness/checks/registry.h"
#include "harness/vdev/vdev.h"
#include "harness/reporters/reporter_registry.h"
#include "harness/subject/subject_kind.h"
#include "harness/subject/op_subject.h"
#include "harness/subject/torchscript_subject.h"
#include "harness/subject/transform_registry.h"
#include "harness/transforms/builtin_transforms.h"
#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/perturb.h"

#include <mutex>

namespace devparity {

void register_builtin_transforms(TransformRegistry& transforms) {
  register_resize(transforms);
  register_gaussian(transforms);
  register_illumination(transforms);
  register_jpeg_codec(transforms);
  register_jpeg_encode(transforms);
  register_interpolate(transforms);
  register_native_ops(transforms);
  register_color_basic(transforms);
  register_flips(transforms);
  register_crop(transforms);
  register_color_adjust(transforms);
  register_color_space_conversions(transforms);
  register_rotate(transforms);
  register_affine(transforms);
  register_perspective(transforms);
  register_elastic(transforms);
  register_thin_plate_spline(transforms);
  register_pad(transforms);
  register_erasing(transforms);
  register_smoothing(transforms);
  register_noise(transforms);
  register_plasma(transforms);
  register_random_color(transforms);
}

void register_builtin_cuda_models() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (auto& m : vdev::cuda_arithmetic::builtin_models()) vdev::cuda_arithmetic::add(std::move(m));
  });
}

void register_builtins() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_builtin_transforms(TransformRegistry::global());

    register_torchscript_subjects(SubjectKindRegistry::global());
    register_op_subjects(SubjectKindRegistry::global());

    register_parity_check(CheckRegistry::global());
    register_placement_check(CheckRegistry::global());
    register_gradient_check(CheckRegistry::global());
    register_jpeg_check(CheckRegistry::global());
    register_stress_check(CheckRegistry::global());

    // Note [Perturbed numerics]: vdev's switches.
    for (auto& s : vdev::perturb::builtin_switches()) vdev::perturb::add(std::move(s));
    register_builtin_cuda_models();

    auto& reporters = ReporterRegistry::global();
    register_console_reporter(reporters);
    register_json_reporter(reporters);
    register_junit_reporter(reporters);
    register_html_reporter(reporters);
  });
}

}  // namespace devparity
