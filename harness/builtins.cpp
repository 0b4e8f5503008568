#include "harness/builtins.h"

#include "harness/checks/registry.h"
#include "harness/device/vdev.h"
#include "harness/report/reporter_registry.h"
#include "harness/subject/subject_kind.h"
#include "harness/subject/op_subject.h"
#include "harness/subject/torchscript_subject.h"
#include "harness/subject/transform_registry.h"
#include "harness/transforms/builtin_transforms.h"

#include <mutex>

namespace devparity {

void register_builtin_transforms(TransformRegistry& transforms) {
  register_geometry_transforms(transforms);
  register_filter_transforms(transforms);
  register_intensity_transforms(transforms);
  register_codec_transforms(transforms);
  register_jpeg_encoder(transforms);
  register_native_transforms(transforms);
  register_native_ops(transforms);
  register_color_basics(transforms);
  register_flips(transforms);
  register_crops(transforms);
  register_color_adjustments(transforms);
  register_color_spaces(transforms);
  register_warps(transforms);
  register_pads(transforms);
  register_erasing(transforms);
  register_smoothing(transforms);
  register_noise(transforms);
  register_plasma(transforms);
  register_color_random(transforms);
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

    auto& reporters = ReporterRegistry::global();
    register_console_reporter(reporters);
    register_json_reporter(reporters);
    register_junit_reporter(reporters);
    register_html_reporter(reporters);
  });
}

}  // namespace devparity
