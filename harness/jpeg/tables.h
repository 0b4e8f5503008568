#pragma once
/// The constants of baseline JPEG (ITU-T T.81 Annex K, and libjpeg's quality
/// scaling), shared by the encoder, the validator and the differentiable
/// codec. Torch-free, so the fuzz target links it without LibTorch.

#include <array>
#include <cstdint>
#include <vector>

namespace devparity::jpeg {

/// Annex K.1 quantization tables, natural (row-major) order.
extern const std::array<uint8_t, 64> kLumaQuant;
extern const std::array<uint8_t, 64> kChromaQuant;

/// Zigzag position -> natural index.
extern const std::array<uint8_t, 64> kNaturalOrder;

/// libjpeg's scale for a quality in 1..100: 5000 / q below 50, else 200 - 2q.
int quality_scale(int quality);

/// `base` scaled for `quality` as libjpeg does, clamped to [1, 255] (baseline).
std::array<uint16_t, 64> scaled_quant_table(const std::array<uint8_t, 64>& base, int quality);

/// The quality whose scaled luma table equals `table` (natural order), or the
/// nearest by summed absolute difference; `exact` says which.
int estimate_quality(const std::array<uint16_t, 64>& luma_table, bool* exact = nullptr);

/// A Huffman table as DHT stores it: counts of codes of length 1..16, symbols.
struct HuffmanSpec {
  std::array<uint8_t, 16> bits{};
  std::vector<uint8_t> values;
};

/// Annex K.3 tables.
const HuffmanSpec& standard_dc_luma();
const HuffmanSpec& standard_ac_luma();
const HuffmanSpec& standard_dc_chroma();
const HuffmanSpec& standard_ac_chroma();

/// Marker codes (the byte after 0xFF).
namespace marker {
constexpr uint8_t kSOF0 = 0xC0, kSOF1 = 0xC1, kSOF2 = 0xC2, kDHT = 0xC4, kRST0 = 0xD0,
                  kSOI = 0xD8, kEOI = 0xD9, kSOS = 0xDA, kDQT = 0xDB, kDNL = 0xDC, kDRI = 0xDD,
                  kAPP0 = 0xE0, kCOM = 0xFE;
}  // namespace marker

}  // namespace devparity::jpeg
