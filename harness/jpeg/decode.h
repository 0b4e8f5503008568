#pragma once
/// Strict decoding with libjpeg-turbo: every warning libjpeg would print and
/// carry on from ("Corrupt JPEG data: N extraneous bytes", "Premature end of
/// JPEG file", a bad Huffman code) is an error here. Torch-free.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace devparity::jpeg {

struct DecodeLimits {
  int64_t max_pixels = int64_t{1} << 27;  ///< width * height; larger frames are refused
  int max_scans = 256;                    ///< progressive files with more scans are refused
};

/// Decoded samples, interleaved (RGB, or one channel for grey), row-major.
struct Decoded {
  bool ok = false;
  std::string error;   ///< libjpeg's message, when not ok
  size_t offset = 0;   ///< how far libjpeg had read when it stopped
  int width = 0, height = 0, components = 0;
  std::vector<uint8_t> pixels;
};

Decoded decode_strict(const uint8_t* data, size_t size, const DecodeLimits& limits = {});

/// Quantized DCT coefficients as the file stores them (jpeg_read_coefficients).
struct Coefficients {
  bool ok = false;
  std::string error;
  size_t offset = 0;
  int width = 0, height = 0;
  struct Component {
    int id = 0, h = 1, v = 1;
    int blocks_w = 0, blocks_h = 0;  ///< libjpeg's width/height_in_blocks
    std::vector<int16_t> values;     ///< blocks_h * blocks_w * 64, natural order
  };
  std::vector<Component> components;
};

Coefficients read_coefficients_strict(const uint8_t* data, size_t size,
                                      const DecodeLimits& limits = {});

}  // namespace devparity::jpeg
