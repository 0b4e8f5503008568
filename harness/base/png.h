#pragma once
/// PNG files as CHW uint8 tensors (libspng): references for `jpeg-check`.

#include <ATen/core/Tensor.h>

#include <string>

namespace devparity {

/// Reads `path`: greyscale PNGs as one channel, everything else as RGB
/// (alpha dropped, 16-bit samples scaled to 8). Throws InputError naming the
/// file and what was wrong.
at::Tensor read_png(const std::string& path);

/// Writes a CHW uint8 tensor (1 or 3 channels) as an 8-bit PNG, atomically.
void write_png(const std::string& path, const at::Tensor& chw);

/// The PNG file for a CHW uint8 tensor (1 or 3 channels), in memory.
std::string encode_png(const at::Tensor& chw);

}  // namespace devparity
