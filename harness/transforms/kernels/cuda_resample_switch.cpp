#include "harness/transforms/kernels/cuda_resample_switch.h"

#include "harness/transforms/kernels/cuda_float_resize.h"
#include "harness/transforms/kernels/resize_config.h"

#include <ATen/ATen.h>

namespace devparity::resample {
namespace {

// The output size when the op was given one and no scale (the model
// computes the scale as in / out, as CUDA does without one).
std::optional<std::vector<int64_t>> size_without_scales(const c10::FunctionSchema& schema,
                                                        const std::vector<c10::IValue>& args) {
  for (const char* scale : {"scales_h", "scales_w", "scale_factors"}) {
    const auto i = schema.argumentIndexWithName(scale);
    if (i && !args[*i].isNone()) return std::nullopt;
  }
  const auto i = schema.argumentIndexWithName("output_size");
  if (!i || args[*i].isNone()) return std::nullopt;
  auto size = args[*i].toIntVector();
  return size.size() == 2 ? std::optional<std::vector<int64_t>>(size) : std::nullopt;
}

std::vector<at::Tensor> cuda_resample(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                      const vdev::perturb::CpuKernel& cpu) {
  const auto x = args[0].toTensor();
  const auto size = size_without_scales(schema, args);
  if (x.scalar_type() != at::kFloat || x.dim() != 4 || !size || !at::isfinite(x).all().item<bool>()) {
    return cpu(args);  // the model's domain: float32 NCHW, finite, sized
  }
  ResizeConfig config;
  config.height = (*size)[0];
  config.width = (*size)[1];
  config.interpolation = schema.name().find("bicubic") != std::string::npos ? Interpolation::kBicubic
                                                                            : Interpolation::kBilinear;
  config.antialias = schema.name().find("_aa") != std::string::npos;
  config.align_corners = args[*schema.argumentIndexWithName("align_corners")].toBool();
  if (!cuda_float_resize_has(config)) return cpu(args);
  return {cuda_float_resize(x, config).contiguous(x.suggest_memory_format())};
}

}  // namespace

vdev::perturb::Switch cuda_resample_switch() {
  return {"cuda_resample",
          "bilinear and bicubic upsampling of float32 images (with or without antialias) computes coordinates and "
          "weights in float32 with nvcc's fused multiply-adds, as LibTorch's CUDA kernels do (verified bit for bit "
          "on a real GPU, docs/transforms.md); given scale factors, non-finite values and other dtypes keep the "
          "CPU's kernel",
          {"aten::upsample_bilinear2d", "aten::upsample_bilinear2d.vec", "aten::upsample_bilinear2d.out",
           "aten::upsample_bicubic2d", "aten::upsample_bicubic2d.vec", "aten::upsample_bicubic2d.out",
           "aten::_upsample_bilinear2d_aa", "aten::_upsample_bilinear2d_aa.vec", "aten::_upsample_bilinear2d_aa.out",
           "aten::_upsample_bicubic2d_aa", "aten::_upsample_bicubic2d_aa.vec", "aten::_upsample_bicubic2d_aa.out"},
          cuda_resample,
          nullptr};
}

}  // namespace devparity::resample
