// The validator: what it accepts, and every way it says a file is broken,
// with the byte offset. Sample files come from libjpeg-turbo and from the
// reference writer.

#include "harness/jpeg/tables.h"
#include "harness/jpeg/validator.h"
#include "harness/jpeg/writer.h"

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <random>

namespace devparity::jpeg {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes turbo(int w, int h, int channels, int subsampling, int flags = 0, uint32_t seed = 3) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> px(static_cast<size_t>(w) * h * channels);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>((i * 7 + rng() % 32) & 0xFF);
  tjhandle t = tjInitCompress();
  unsigned char* out = nullptr;
  unsigned long size = 0;
  const int rc = tjCompress2(t, px.data(), w, 0, h, channels == 1 ? TJPF_GRAY : TJPF_RGB, &out, &size,
                             subsampling, 80, flags);
  Bytes b(out, out + size);
  tjFree(out);
  tjDestroy(t);
  EXPECT_EQ(rc, 0);
  return b;
}

// A file from the reference writer: 24x16 colour 4:2:0, restart every MCU.
Bytes written(int restart = 0) {
  static std::vector<int16_t> y(6 * 2 * 64), cb(3 * 64), cr(3 * 64);
  for (size_t i = 0; i < y.size(); i += 64) y[i] = static_cast<int16_t>(i / 64 * 7 - 20);
  FrameData f;
  f.width = 40;
  f.height = 16;
  f.components = {{1, 2, 2, 0, 0, 6, 2, y.data()}, {2, 1, 1, 1, 1, 3, 1, cb.data()}, {3, 1, 1, 1, 1, 3, 1, cr.data()}};
  f.quant_tables = {scaled_quant_table(kLumaQuant, 75), scaled_quant_table(kChromaQuant, 75)};
  f.restart_interval = restart;
  return write_jpeg(f);
}

size_t find_marker(const Bytes& b, uint8_t m, size_t from = 0) {
  for (size_t i = from; i + 1 < b.size(); ++i) {
    if (b[i] == 0xFF && b[i + 1] == m) return i;
  }
  ADD_FAILURE() << "no marker " << static_cast<int>(m);
  return 0;
}

Inspection check(const Bytes& b, const Expectation& e = {}) { return validate(b.data(), b.size(), e); }

TEST(ValidatorTest, AcceptsBaselineProgressiveGreyAndRestarts) {
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, Bytes>>{
           {"420", turbo(33, 17, 3, TJSAMP_420)},
           {"444", turbo(33, 17, 3, TJSAMP_444)},
           {"422", turbo(33, 17, 3, TJSAMP_422)},
           {"grey", turbo(9, 31, 1, TJSAMP_GRAY)},
           {"progressive", turbo(64, 48, 3, TJSAMP_420, TJFLAG_PROGRESSIVE)},
           {"optimized", turbo(64, 48, 3, TJSAMP_444, TJFLAG_ACCURATEDCT)},
           {"writer", written()},
           {"writer restarts", written(1)},
           {"writer restarts 4", written(4)}}) {
    const auto r = check(bytes);
    EXPECT_EQ(r.verdict, Verdict::kValid) << name << ": " << r.reason << " at " << r.offset;
    EXPECT_EQ(r.end, bytes.size()) << name;
  }
  const auto p = check(turbo(64, 48, 3, TJSAMP_420, TJFLAG_PROGRESSIVE));
  EXPECT_TRUE(p.progressive);
  EXPECT_GT(p.scans, 1);
  const auto r = check(written(4));
  EXPECT_EQ(r.restart_interval, 4);
  EXPECT_EQ(r.subsampling(), "4:2:0");
  EXPECT_EQ(r.width, 40);
  EXPECT_EQ(r.height, 16);
  EXPECT_EQ(r.markers.front(), "SOI");
  EXPECT_EQ(r.markers.back(), "EOI");
}

TEST(ValidatorTest, ExpectationsGiveAMismatch) {
  const auto b = turbo(33, 17, 3, TJSAMP_420);
  EXPECT_EQ(check(b, {33, 17, 3}).verdict, Verdict::kValid);
  const auto m = check(b, {32, 17, 3});
  EXPECT_EQ(m.verdict, Verdict::kMismatch);
  EXPECT_NE(m.reason.find("width 33, expected 32"), std::string::npos) << m.reason;
  EXPECT_EQ(check(b, {std::nullopt, std::nullopt, 1}).verdict, Verdict::kMismatch);
}

struct Broken {
  std::string name;
  Bytes bytes;
  std::string words;  // in the reason
  size_t offset = 0;  // where the validator must say the damage is
};

TEST(ValidatorTest, NamesEachKindOfDamageWithItsOffset) {
  const auto good = written(2);
  const size_t sof = find_marker(good, marker::kSOF0), sos = find_marker(good, marker::kSOS);
  const size_t dqt = find_marker(good, marker::kDQT), dht = find_marker(good, marker::kDHT);
  const size_t rst = find_marker(good, 0xD0, sos), eoi = good.size() - 2;
  std::vector<Broken> cases;
  // The offset is exact: the byte of the damaged field, the marker, or where
  // the data ran out.
  auto with = [&](std::string name, std::string words, size_t offset, auto edit) {
    Bytes b = good;
    edit(b);
    cases.push_back({std::move(name), std::move(b), std::move(words), offset});
  };
  with("empty", "no SOI", 0, [](Bytes& b) { b.clear(); });
  with("not jpeg", "no SOI", 0, [](Bytes& b) { b[0] = 0x89; });
  with("truncated in the scan", "runs to the end", sos + 30, [&](Bytes& b) { b.resize(sos + 30); });
  with("truncated in a header", "runs past the end", dht + 2, [&](Bytes& b) { b.resize(dht + 10); });
  with("no EOI", "end", eoi, [](Bytes& b) { b.resize(b.size() - 2); });
  with("trailing bytes", "extraneous byte(s) after EOI", good.size(), [](Bytes& b) { b.push_back(0); b.push_back(1); });
  with("SOF length", "SOF: length", sof + 2, [&](Bytes& b) { b[sof + 3] += 3; });
  with("SOF zero height", "height 0", sof + 5, [&](Bytes& b) { b[sof + 5] = 0; b[sof + 6] = 0; });
  with("SOF sampling", "sampling factors", sof + 11, [&](Bytes& b) { b[sof + 11] = 0x52; });
  with("zero quantizer", "quantization value 0", dqt + 5 + 10, [&](Bytes& b) { b[dqt + 5 + 10] = 0; });
  with("DHT over-subscribed", "over-subscribed", dht + 5, [&](Bytes& b) { b[dht + 5] = 3; });
  with("SOS unknown component", "not in the frame", sos + 5, [&](Bytes& b) { b[sos + 5] = 9; });
  with("RST out of order", "out of sequence", rst, [&](Bytes& b) { b[rst + 1] = 0xD3; });
  with("RST missing", "RST marker(s)", eoi - 2, [&](Bytes& b) {  // the scan ends at EOI, 2 bytes earlier
    b.erase(b.begin() + static_cast<long>(rst), b.begin() + static_cast<long>(rst) + 2);
  });
  with("second SOI", "second SOI", 2, [&](Bytes& b) { b.insert(b.begin() + 2, {0xFF, 0xD8}); });
  with("garbage between segments", "expected a marker", dqt,
       [&](Bytes& b) { b.insert(b.begin() + static_cast<long>(dqt), 0x42); });
  with("arithmetic", "not supported", sof, [&](Bytes& b) { b[sof + 1] = 0xC9; });
  // Found by the fuzzer: an SOS of length 2 as the file's last bytes.
  with("empty SOS at the end", "SOS: empty segment", sos, [&](Bytes& b) {
    b.resize(sos);
    b.insert(b.end(), {0xFF, 0xDA, 0x00, 0x02});
  });
  for (const auto& c : cases) {
    const auto r = check(c.bytes);
    EXPECT_EQ(r.verdict, Verdict::kCorrupt) << c.name;
    EXPECT_NE(r.reason.find(c.words), std::string::npos) << c.name << ": " << r.reason;
    EXPECT_EQ(r.offset, c.offset) << c.name << ": " << r.reason;
  }
}

TEST(ValidatorTest, LibjpegWarningsAreCorruption) {
  // Structurally sound, but the entropy-coded data is garbage: libjpeg warns
  // ("Corrupt JPEG data") or fails; either is corrupt here, never valid.
  auto b = turbo(64, 64, 3, TJSAMP_444);
  const size_t sos = find_marker(b, marker::kSOS);
  const size_t data = sos + 2 + ((b[sos + 2] << 8) | b[sos + 3]);
  for (size_t i = data + 10; i < b.size() - 40; ++i) b[i] = static_cast<uint8_t>(i * 37 % 255);
  const auto r = check(b);
  EXPECT_EQ(r.verdict, Verdict::kCorrupt);
  EXPECT_NE(r.reason.find("libjpeg"), std::string::npos) << r.reason;
  EXPECT_GT(r.offset, data);
}

TEST(ValidatorTest, DecodeLimitsRefuseBombs) {
  auto b = turbo(16, 16, 1, TJSAMP_GRAY);
  DecodeLimits limits;
  limits.max_pixels = 100;
  const auto r = validate(b.data(), b.size(), {}, nullptr, limits);
  EXPECT_EQ(r.verdict, Verdict::kCorrupt);
  EXPECT_NE(r.reason.find("decode limit"), std::string::npos) << r.reason;
}

TEST(ValidatorTest, SplitsBackToBackFiles) {
  const auto a = written(), b = turbo(9, 9, 1, TJSAMP_GRAY);
  Bytes both = a;
  both.insert(both.end(), b.begin(), b.end());
  const auto parts = split_stream(both.data(), both.size());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], std::make_pair(size_t{0}, a.size()));
  EXPECT_EQ(parts[1], std::make_pair(a.size(), both.size()));
  // A broken first file ends at the next SOI; garbage after the last takes the rest.
  Bytes broken(a.begin(), a.begin() + 40);
  broken.insert(broken.end(), b.begin(), b.end());
  const auto resync = split_stream(broken.data(), broken.size());
  ASSERT_EQ(resync.size(), 2u);
  EXPECT_EQ(resync[1], std::make_pair(size_t{40}, broken.size()));
  Bytes tail = a;
  tail.insert(tail.end(), {1, 2, 3});
  EXPECT_EQ(split_stream(tail.data(), tail.size()).size(), 2u);
}

}  // namespace
}  // namespace devparity::jpeg
