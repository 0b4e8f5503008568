#pragma once
/// Baseline JFIF writing on the host: markers, Huffman tables (standard or
/// optimised per image) and entropy coding of quantized DCT coefficients.
/// Torch-free; the device part of the encoder (encoder.h) hands it the
/// coefficients once they are on the host.

#include "harness/jpeg/tables.h"

#include <array>
#include <cstdint>
#include <vector>

namespace devparity::jpeg {

/// One component's quantized coefficients.
struct ComponentData {
  uint8_t id = 1;
  uint8_t h = 1, v = 1;     ///< sampling factors
  uint8_t quant_table = 0;  ///< index into FrameData::quant_tables
  uint8_t huffman_table = 0;  ///< 0: luma tables, 1: chroma tables
  int blocks_w = 0, blocks_h = 0;  ///< the block grid, whole MCUs
  /// blocks_h * blocks_w blocks in raster order, 64 values each in natural order.
  const int16_t* coefficients = nullptr;
};

struct FrameData {
  int width = 0, height = 0;
  std::vector<ComponentData> components;  ///< 1 (grey) or 3 (YCbCr)
  std::vector<std::array<uint16_t, 64>> quant_tables;  ///< natural order, values 1..255
  bool optimize_huffman = false;  ///< two passes: tables built from this image's symbols
  int restart_interval = 0;       ///< MCUs between RST markers; 0: none
};

/// The JFIF file. Throws std::invalid_argument when the frame is inconsistent
/// (grid sizes, table indices) or a coefficient is out of baseline's range.
std::vector<uint8_t> write_jpeg(const FrameData& frame);

/// The table libjpeg's jpeg_gen_optimal_table() builds for `frequencies`
/// (256 symbols): lengths limited to 16 bits, no all-ones code.
HuffmanSpec optimal_huffman(const std::array<uint32_t, 256>& frequencies);

/// Canonical codes (Annex C) of `spec`: code and length per symbol (length 0:
/// no code). Throws std::invalid_argument when the counts over-subscribe.
struct HuffmanCodes {
  std::array<uint16_t, 256> code{};
  std::array<uint8_t, 256> length{};
};
HuffmanCodes huffman_codes(const HuffmanSpec& spec);

}  // namespace devparity::jpeg
