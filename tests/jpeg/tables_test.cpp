// Annex K tables, libjpeg's quality scaling and the canonical Huffman codes.

#include "harness/jpeg/tables.h"
#include "harness/jpeg/writer.h"

#include <gtest/gtest.h>

#include <numeric>

namespace devparity::jpeg {
namespace {

TEST(JpegTablesTest, QualityScalingIsLibjpegs) {
  EXPECT_EQ(quality_scale(1), 5000);
  EXPECT_EQ(quality_scale(25), 200);
  EXPECT_EQ(quality_scale(50), 100);
  EXPECT_EQ(quality_scale(75), 50);
  EXPECT_EQ(quality_scale(100), 0);
  // q50 is the Annex K table; q75 halves it with rounding; q100 is all ones;
  // q1 saturates at the baseline maximum 255.
  const auto q50 = scaled_quant_table(kLumaQuant, 50);
  const auto q75 = scaled_quant_table(kLumaQuant, 75);
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(q50[i], kLumaQuant[i]);
    EXPECT_EQ(q75[i], (kLumaQuant[i] * 50 + 50) / 100);
    EXPECT_EQ(scaled_quant_table(kLumaQuant, 100)[i], 1);
    EXPECT_EQ(scaled_quant_table(kChromaQuant, 1)[i], 255);
  }
  EXPECT_EQ(q75[0], 8);
}

TEST(JpegTablesTest, EstimateQualityInvertsTheScaling) {
  for (int q = 1; q <= 100; ++q) {
    bool exact = false;
    const int estimated = estimate_quality(scaled_quant_table(kLumaQuant, q), &exact);
    EXPECT_TRUE(exact) << q;
    // Some qualities share a table: the estimate gives the same one.
    EXPECT_EQ(scaled_quant_table(kLumaQuant, estimated), scaled_quant_table(kLumaQuant, q)) << q;
  }
  std::array<uint16_t, 64> odd{};
  odd.fill(3);
  bool exact = true;
  estimate_quality(odd, &exact);
  EXPECT_FALSE(exact);
}

TEST(JpegTablesTest, ZigzagIsAPermutation) {
  std::array<int, 64> seen{};
  for (auto n : kNaturalOrder) ++seen[n];
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_EQ(kNaturalOrder[2], 8);   // (0,1) then (1,0)
  EXPECT_EQ(kNaturalOrder[63], 63);
}

TEST(JpegTablesTest, StandardHuffmanCodesOfAnnexK) {
  // Table K.3: DC luma category 0 is "00", 1 "010", 11 "111111110".
  const auto dc = huffman_codes(standard_dc_luma());
  EXPECT_EQ(dc.length[0], 2);
  EXPECT_EQ(dc.code[0], 0b00);
  EXPECT_EQ(dc.length[1], 3);
  EXPECT_EQ(dc.code[1], 0b010);
  EXPECT_EQ(dc.length[11], 9);
  EXPECT_EQ(dc.code[11], 0b111111110);
  // Table K.5: AC luma EOB (0/0) "1010", ZRL (F/0) "11111111001", 0/1 "00".
  const auto ac = huffman_codes(standard_ac_luma());
  EXPECT_EQ(ac.length[0x00], 4);
  EXPECT_EQ(ac.code[0x00], 0b1010);
  EXPECT_EQ(ac.length[0xF0], 11);
  EXPECT_EQ(ac.code[0xF0], 0b11111111001);
  EXPECT_EQ(ac.length[0x01], 2);
  EXPECT_EQ(ac.code[0x01], 0b00);
  for (const auto* spec : {&standard_ac_luma(), &standard_ac_chroma()}) {
    EXPECT_EQ(std::accumulate(spec->bits.begin(), spec->bits.end(), 0), 162);
    EXPECT_EQ(spec->values.size(), 162u);
  }
}

TEST(JpegTablesTest, OptimalTablesAreCompleteAndShort) {
  std::array<uint32_t, 256> freq{};
  // Geometric frequencies force long codes; the 16-bit limit must fold them.
  uint32_t f = 1u << 30;
  for (int s = 0; s < 40; ++s, f = std::max(1u, f / 2)) freq[static_cast<size_t>(s)] = f;
  const auto spec = optimal_huffman(freq);
  EXPECT_EQ(spec.values.size(), 40u);
  const auto codes = huffman_codes(spec);  // throws when over-subscribed
  double kraft = 0;
  for (int s = 0; s < 40; ++s) {
    ASSERT_GT(codes.length[s], 0);
    ASSERT_LE(codes.length[s], 16);
    kraft += 1.0 / static_cast<double>(1 << codes.length[s]);
  }
  EXPECT_LT(kraft, 1.0);  // the all-ones code stays unused
  EXPECT_LE(codes.length[0], codes.length[39]);
  HuffmanSpec bad;
  bad.bits[0] = 3;  // three codes of length 1
  bad.values = {1, 2, 3};
  EXPECT_THROW(huffman_codes(bad), std::invalid_argument);
}

}  // namespace
}  // namespace devparity::jpeg
