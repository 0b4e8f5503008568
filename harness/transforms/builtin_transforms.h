#pragma once
/// One registration function per built-in family, called by register_builtins().

namespace devparity {

class TransformRegistry;

/// resize, rescale (transforms/geometry/resize.cpp).
void register_geometry_transforms(TransformRegistry& registry);
/// gaussian_blur2d, unsharp_mask (transforms/filter/gaussian.cpp).
void register_filter_transforms(TransformRegistry& registry);
/// planckian_jitter, gaussian_illumination (transforms/intensity/illumination.cpp).
void register_intensity_transforms(TransformRegistry& registry);
/// jpeg_codec_differentiable (transforms/codec/jpeg_codec.cpp).
void register_codec_transforms(TransformRegistry& registry);
/// jpeg_encode: the reference JPEG encoder as a subject (transforms/codec/jpeg_encode.cpp).
void register_jpeg_encoder(TransformRegistry& registry);
/// interpolate: LibTorch's own op as a subject (transforms/native/interpolate.cpp).
void register_native_transforms(TransformRegistry& registry);
/// invert, solarize, posterize, adjust_brightness, to_dtype (color/basic.cpp).
void register_color_basics(TransformRegistry& registry);
/// hflip, vflip (geometry/flips.cpp).
void register_flips(TransformRegistry& registry);
/// crop, center_crop, resized_crop (geometry/crop.cpp).
void register_crops(TransformRegistry& registry);
/// contrast, saturation, hue, gamma, grayscale, sharpness, autocontrast,
/// equalize, sigmoid, log, normalize, denormalize (color/adjust.cpp).
void register_color_adjustments(TransformRegistry& registry);
/// RGB <-> HSV, HLS, YCbCr, YUV, Lab (color_space/conversions.cpp).
void register_color_spaces(TransformRegistry& registry);
/// rotate, affine, perspective, elastic_transform, thin_plate_spline (geometry/warp.cpp).
void register_warps(TransformRegistry& registry);
/// pad (geometry/pad.cpp).
void register_pads(TransformRegistry& registry);
/// erasing (geometry/erasing.cpp).
void register_erasing(TransformRegistry& registry);
/// box_blur, median_blur, motion_blur (filter/smoothing.cpp).
void register_smoothing(TransformRegistry& registry);
/// gaussian_noise, salt_and_pepper, plasma_brightness, plasma_shadow (noise/noise.cpp).
void register_noise(TransformRegistry& registry);
void register_plasma(TransformRegistry& registry);
/// color_jitter, channel_shuffle, rgb_shift (color/random_color.cpp).
void register_color_random(TransformRegistry& registry);
/// grid_sample, conv2d, avg_pool2d, conv_blur (native/native_ops.cpp).
void register_native_ops(TransformRegistry& registry);

}  // namespace devparity
