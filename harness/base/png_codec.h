#pragma once
/// PNG files to and from 8-bit pixels (libspng), without LibTorch: png.h
/// wraps them in tensors; the report commands use them directly.

#include <cstdint>
#include <string>
#include <vector>

namespace devparity {

/// Pixels of one 8-bit image, interleaved (height x width x channels).
struct PngPixels {
  int64_t height = 0, width = 0;
  int channels = 3;              ///< 1 (grey) or 3 (RGB)
  std::vector<uint8_t> samples;  ///< height * width * channels
};

/// Decodes a PNG file's bytes (`path` names it in errors): greyscale as one
/// channel, everything else as RGB (alpha dropped, 16-bit samples scaled to
/// 8). Throws InputError naming the file and what was wrong.
PngPixels decode_png(const std::string& bytes, const std::string& path);

/// The PNG file of `pixels` (1 or 3 channels), in memory.
std::string encode_png(const PngPixels& pixels);

}  // namespace devparity
