#pragma once
/// One registration function per catalog file, named after it, called by
/// register_builtin_transforms() (harness/builtins.cpp).

namespace devparity {

class TransformRegistry;

/// jpeg_codec_differentiable (codec/jpeg_codec.cpp).
void register_jpeg_codec(TransformRegistry& registry);
/// jpeg_encode: the reference JPEG encoder as a subject (codec/jpeg_encode.cpp).
void register_jpeg_encode(TransformRegistry& registry);
/// contrast, saturation, hue, gamma, grayscale, sharpness, autocontrast,
/// equalize, sigmoid, log, normalize, denormalize (color/adjust.cpp).
void register_color_adjust(TransformRegistry& registry);
/// invert, solarize, posterize, adjust_brightness, to_dtype (color/basic.cpp).
void register_color_basic(TransformRegistry& registry);
/// color_jitter, channel_shuffle, rgb_shift (color/random_color.cpp).
void register_random_color(TransformRegistry& registry);
/// RGB <-> HSV, HLS, YCbCr, YUV, Lab (color_space/conversions.cpp).
void register_color_space_conversions(TransformRegistry& registry);
/// gaussian_blur2d, unsharp_mask (filter/gaussian.cpp).
void register_gaussian(TransformRegistry& registry);
/// box_blur, median_blur, motion_blur (filter/smoothing.cpp).
void register_smoothing(TransformRegistry& registry);
/// affine (geometry/affine.cpp).
void register_affine(TransformRegistry& registry);
/// crop, center_crop, resized_crop (geometry/crop.cpp).
void register_crop(TransformRegistry& registry);
/// elastic_transform (geometry/elastic.cpp).
void register_elastic(TransformRegistry& registry);
/// erasing (geometry/erasing.cpp).
void register_erasing(TransformRegistry& registry);
/// hflip, vflip (geometry/flips.cpp).
void register_flips(TransformRegistry& registry);
/// pad (geometry/pad.cpp).
void register_pad(TransformRegistry& registry);
/// perspective (geometry/perspective.cpp).
void register_perspective(TransformRegistry& registry);
/// resize, rescale (geometry/resize.cpp).
void register_resize(TransformRegistry& registry);
/// rotate (geometry/rotate.cpp).
void register_rotate(TransformRegistry& registry);
/// thin_plate_spline (geometry/thin_plate_spline.cpp).
void register_thin_plate_spline(TransformRegistry& registry);
/// planckian_jitter, gaussian_illumination (intensity/illumination.cpp).
void register_illumination(TransformRegistry& registry);
/// plasma_brightness, plasma_shadow (intensity/plasma.cpp).
void register_plasma(TransformRegistry& registry);
/// interpolate: LibTorch's own op as a subject (native/interpolate.cpp).
void register_interpolate(TransformRegistry& registry);
/// grid_sample, conv2d, avg_pool2d, conv_blur (native/native_ops.cpp).
void register_native_ops(TransformRegistry& registry);
/// gaussian_noise, salt_and_pepper (noise/noise.cpp).
void register_noise(TransformRegistry& registry);

}  // namespace devparity
