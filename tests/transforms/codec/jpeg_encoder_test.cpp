// The reference encoder: files libjpeg-turbo decodes strictly, at the quality
// the settings promise, with the coefficients the device computed, and the
// same bytes on every device.

#include "harness/builtins.h"
#include "harness/vdev/vdev.h"
#include "harness/jpeg/content.h"
#include "harness/transforms/codec/jpeg_encoder.h"
#include "harness/jpeg/validator.h"
#include "harness/suite/inputs.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <array>

namespace devparity::jpeg {
namespace {

at::Tensor image(const char* pattern, int64_t c, int64_t h, int64_t w, uint64_t seed = 1) {
  InputRecipe r;
  r.pattern = pattern;
  r.shape = {1, c, h, w};
  return make_input(r, at::kByte, seed)[0];
}

// Interleaved HWC bytes of a CHW uint8 image, as libjpeg returns them.
std::vector<uint8_t> hwc(const at::Tensor& chw) {
  const auto t = chw.permute({1, 2, 0}).contiguous();
  return std::vector<uint8_t>(t.data_ptr<uint8_t>(), t.data_ptr<uint8_t>() + t.numel());
}

struct Setting {
  int quality;
  Subsampling subsampling;
  bool optimize;
  int restart;
};

TEST(EncoderTest, DecodesStrictlyAboveTheFloorAtEveryQuality) {
  for (const char* pattern : {"ramp", "edges", "checkerboard", "noise"}) {
    for (int64_t c : {3, 1}) {
      const auto x = image(pattern, c, 37, 53);
      const auto source = hwc(x);
      for (const Setting s : {Setting{50, Subsampling::k420, false, 0}, Setting{75, Subsampling::k420, true, 0},
                              Setting{90, Subsampling::k444, false, 3}, Setting{90, Subsampling::k420, true, 1}}) {
        EncoderOptions o;
        o.quality = s.quality;
        o.subsampling = s.subsampling;
        o.optimize_huffman = s.optimize;
        o.restart_interval = s.restart;
        const auto bytes = encode_image(x, o);
        Decoded d;
        const auto v = validate(bytes.data(), bytes.size(), {53, 37, static_cast<int>(c)}, &d);
        ASSERT_EQ(v.verdict, Verdict::kValid) << pattern << " c" << c << " q" << s.quality << ": " << v.reason
                                              << " at " << v.offset;
        const double p = psnr(source.data(), d.pixels.data(), source.size());
        const auto sub = c == 1 ? "grey" : (s.subsampling == Subsampling::k420 ? "4:2:0" : "4:4:4");
        EXPECT_EQ(v.subsampling(), sub);
        const auto floor = psnr_floor(source.data(), 53, 37, static_cast<int>(c), s.quality, sub);
        EXPECT_GE(p, floor.floor_db) << pattern << " c" << c << " q" << s.quality << " " << floor.basis;
        // Close to libjpeg-turbo at the same settings, whose DCT rounds
        // differently: never more than 1 dB below it (the worst here: a
        // checkerboard at q75, 0.56 dB below) and never more than 3 dB above
        // (the most: a checkerboard at q90, 2.3 dB above).
        EXPECT_GT(p, floor.reference_db - 1.0) << pattern << " c" << c << " q" << s.quality;
        EXPECT_LT(p, floor.reference_db + 3.0) << pattern << " c" << c << " q" << s.quality;
      }
    }
  }
}

TEST(EncoderTest, TheFileHoldsTheCoefficientsTheDeviceComputed) {
  const auto x = image("noise", 3, 35, 50);
  EncoderOptions o;
  o.quality = 60;
  auto tables = make_tables(o.quality, 3);
  const auto q = quantize(x, tables.dct, tables.quant, o);
  const auto host = hand_over(q.coefficients);
  const auto bytes = entropy_code(q, host, tables.host_quant, o);
  const auto read = read_coefficients_strict(bytes.data(), bytes.size());
  ASSERT_TRUE(read.ok) << read.error;
  ASSERT_EQ(read.components.size(), 3u);
  for (size_t c = 0; c < 3; ++c) {
    const auto& rc = read.components[c];
    const auto& mine = q.frame.components[c];
    // libjpeg's grid covers the image; ours covers whole MCUs (it is at least as large).
    ASSERT_LE(rc.blocks_w, mine.blocks_w);
    ASSERT_LE(rc.blocks_h, mine.blocks_h);
    const int16_t* ours = host.data_ptr<int16_t>() + q.offsets[c];
    int64_t differing = 0;
    for (int by = 0; by < rc.blocks_h; ++by) {
      for (int bx = 0; bx < rc.blocks_w; ++bx) {
        for (int k = 0; k < 64; ++k) {
          differing += rc.values[(static_cast<size_t>(by) * rc.blocks_w + bx) * 64 + k] !=
                       ours[(static_cast<size_t>(by) * mine.blocks_w + bx) * 64 + k];
        }
      }
    }
    EXPECT_EQ(differing, 0) << "component " << c;
  }
}

// F = A B A^T with B the level-shifted block, in int64 on the host, and
// quantized by 1: round half away from zero of F / 2^32.
std::array<int64_t, 64> host_dct(const at::Tensor& dct, const uint8_t* block) {
  const auto a = dct.accessor<double, 2>();
  std::array<int64_t, 64> out{};
  for (int v = 0; v < 8; ++v) {
    for (int u = 0; u < 8; ++u) {
      int64_t f = 0;
      for (int y = 0; y < 8; ++y) {
        for (int x = 0; x < 8; ++x) {
          f += static_cast<int64_t>(a[v][y]) * static_cast<int64_t>(a[u][x]) * (block[y * 8 + x] - 128);
        }
      }
      const int64_t magnitude = ((f < 0 ? -f : f) + (int64_t{1} << 31)) >> 32;
      out[v * 8 + u] = f < 0 ? -magnitude : magnitude;
    }
  }
  return out;
}

TEST(EncoderTest, DctIsExactAtItsBounds) {
  // For every (v, u) the block of 0s and 255s whose coefficient there is the
  // largest, and its opposite (the bounds of Note [Exact JPEG arithmetic]),
  // then random blocks: at quality 100 (every quantizer 1) the encoder's
  // coefficients are the exact transform, rounded half away from zero.
  EncoderOptions o;
  o.quality = 100;
  const auto tables = make_tables(o.quality, 1);
  const auto a = tables.dct.accessor<double, 2>();
  std::vector<at::Tensor> blocks;
  for (int v = 0; v < 8; ++v) {
    for (int u = 0; u < 8; ++u) {
      for (int sign : {1, -1}) {
        auto b = at::empty({1, 8, 8}, at::kByte);
        auto acc = b.accessor<uint8_t, 3>();
        for (int y = 0; y < 8; ++y) {
          for (int x = 0; x < 8; ++x) acc[0][y][x] = sign * a[v][y] * a[u][x] > 0 ? 255 : 0;
        }
        blocks.push_back(b);
      }
    }
  }
  auto gen = at::make_generator<at::CPUGeneratorImpl>(7);
  for (int i = 0; i < 32; ++i) blocks.push_back(at::randint(0, 256, {1, 8, 8}, gen, at::kByte));
  // All in one image, side by side, so the strip and block order are tested too.
  const auto image = at::cat(blocks, 2).contiguous();
  const auto q = quantize(image, tables.dct, tables.quant, o);
  const auto c = q.coefficients.contiguous();
  ASSERT_EQ(c.numel(), static_cast<int64_t>(blocks.size()) * 64);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const auto expected = host_dct(tables.dct, blocks[i].contiguous().data_ptr<uint8_t>());
    for (int k = 0; k < 64; ++k) {
      ASSERT_EQ(c[static_cast<int64_t>(i * 64 + k)].item<int>(), expected[k]) << "block " << i << " coefficient " << k;
    }
  }
}

TEST(EncoderTest, ConstantBlockIsItsDcOnly) {
  // A flat 8x8 block of v: DC = 8 (v - 128) / Q, every AC 0.
  const auto x = at::full({1, 8, 8}, 200, at::kByte);
  EncoderOptions o;
  o.quality = 50;  // the Annex K table itself: DC quantizer 16
  auto tables = make_tables(o.quality, 1);
  const auto q = quantize(x, tables.dct, tables.quant, o);
  const auto c = q.coefficients.to(at::kInt);
  EXPECT_EQ(c[0].item<int>(), 36);  // 8 * 72 / 16 = 36
  EXPECT_EQ(c.narrow(0, 1, 63).abs().sum().item<int>(), 0);
}

TEST(EncoderTest, SameBytesOnEveryDeviceAndFromFloatInput) {
  const auto x = image("edges", 3, 45, 61);
  EncoderOptions o;
  o.quality = 85;
  o.optimize_huffman = true;
  const auto cpu = encode_image(x, o);
  // Float input in [0, 1] is rounded back to the same levels.
  EXPECT_EQ(encode_image(x.to(at::kFloat) / 255.0, o), cpu);
  register_builtins();  // installs vdev:0 and vdev:1
  if (vdev::device_count() < 2) GTEST_SKIP() << "this build has no virtual device";
  EXPECT_EQ(encode_image(x.to(vdev::device(1)), o), cpu);
}

TEST(EncoderTest, RunsOnMetaUpToTheHandOver) {
  const auto x = at::empty({3, 40, 30}, at::TensorOptions().dtype(at::kByte).device(at::kMeta));
  EncoderOptions o;
  auto tables = make_tables(o.quality, 3);
  const auto q = quantize(x, tables.dct.to(at::kMeta), tables.quant.to(at::kMeta), o);
  EXPECT_EQ(q.coefficients.device().type(), c10::DeviceType::Meta);
  // 4:2:0 on 40x30 -> 48x32 padded: Y 6x4 blocks, Cb and Cr 3x2 each.
  EXPECT_EQ(q.coefficients.numel(), (24 + 6 + 6) * 64);
}

TEST(EncoderTest, RejectsWhatJpegCannotHold) {
  EncoderOptions o;
  EXPECT_THROW(encode_image(at::zeros({2, 8, 8}, at::kByte), o), std::invalid_argument);
  EXPECT_THROW(encode_image(at::zeros({3, 0, 8}, at::kByte), o), std::invalid_argument);
  o.quality = 0;
  EXPECT_THROW(encode_image(at::zeros({3, 8, 8}, at::kByte), o), std::invalid_argument);
}

}  // namespace
}  // namespace devparity::jpeg
