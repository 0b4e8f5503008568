#pragma once
/// One registration function per built-in family, called by register_builtins().

namespace devparity {

class TransformRegistry;

/// resize (transforms/resize.cpp).
void register_geometry_transforms(TransformRegistry& registry);
/// gaussian_blur2d (transforms/blur.cpp).
void register_filter_transforms(TransformRegistry& registry);
/// interpolate: LibTorch's own op as a subject (transforms/interpolate.cpp).
void register_native_transforms(TransformRegistry& registry);

}  // namespace devparity
