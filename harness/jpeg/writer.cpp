#include "harness/jpeg/writer.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace devparity::jpeg {
namespace {

// Bits needed for a magnitude (0 for 0): the JPEG "size" category.
int bit_length(int magnitude) {
  return magnitude == 0 ? 0 : 32 - __builtin_clz(static_cast<unsigned>(magnitude));
}

// Symbols of one block, in coding order: emit(is_ac, symbol, extra bits, extra length).
// The DC predictor is per component and reset at restart markers.
template <typename Emit>
void block_symbols(const int16_t* block, int& dc_pred, Emit&& emit) {
  const int dc = block[0];
  const int diff = dc - dc_pred;
  dc_pred = dc;
  const int dc_size = bit_length(diff < 0 ? -diff : diff);
  if (dc_size > 11) throw std::invalid_argument("DC difference " + std::to_string(diff) + " exceeds baseline");
  emit(false, static_cast<uint8_t>(dc_size), static_cast<uint32_t>(diff < 0 ? diff - 1 : diff), dc_size);
  // The AC coefficients in zigzag order, and a bit for each that is not
  // zero: a run of zeros is then the distance between two set bits.
  std::array<int16_t, 64> zigzag;
  uint64_t nonzero = 0;
#pragma GCC unroll 63
  for (int k = 1; k < 64; ++k) {
    zigzag[k] = block[kNaturalOrder[k]];
    nonzero |= static_cast<uint64_t>(zigzag[k] != 0) << k;
  }
  int last = 0;
  while (nonzero != 0) {
    const int k = __builtin_ctzll(nonzero);
    nonzero &= nonzero - 1;
    int run = k - last - 1;
    last = k;
    for (; run > 15; run -= 16) emit(true, 0xF0, 0, 0);  // ZRL: sixteen zeros
    const int v = zigzag[k];
    const int size = bit_length(v < 0 ? -v : v);
    if (size > 10) throw std::invalid_argument("AC coefficient " + std::to_string(v) + " exceeds baseline");
    emit(true, static_cast<uint8_t>((run << 4) | size), static_cast<uint32_t>(v < 0 ? v - 1 : v), size);
  }
  if (last < 63) emit(true, 0x00, 0, 0);  // EOB
}

// Visits every block in scan order: interleaved MCUs for several components,
// one block per MCU for one. on_restart(n) comes before MCU n of each interval.
template <typename OnBlock, typename OnRestart>
void scan_blocks(const FrameData& f, OnBlock&& on_block, OnRestart&& on_restart) {
  int hmax = 1, vmax = 1;
  for (const auto& c : f.components) {
    hmax = std::max<int>(hmax, c.h);
    vmax = std::max<int>(vmax, c.v);
  }
  const bool single = f.components.size() == 1;
  const int mcu_w = single ? 8 : 8 * hmax, mcu_h = single ? 8 : 8 * vmax;
  const int mcus_x = (f.width + mcu_w - 1) / mcu_w, mcus_y = (f.height + mcu_h - 1) / mcu_h;
  int mcu = 0, restarts = 0;
  for (int my = 0; my < mcus_y; ++my) {
    for (int mx = 0; mx < mcus_x; ++mx, ++mcu) {
      if (f.restart_interval > 0 && mcu > 0 && mcu % f.restart_interval == 0) on_restart(restarts++);
      for (size_t ci = 0; ci < f.components.size(); ++ci) {
        const auto& c = f.components[ci];
        const int bh = single ? 1 : c.v, bw = single ? 1 : c.h;
        for (int v = 0; v < bh; ++v) {
          for (int h = 0; h < bw; ++h) {
            const int by = my * bh + v, bx = mx * bw + h;
            on_block(ci, c.coefficients + (static_cast<size_t>(by) * c.blocks_w + bx) * 64);
          }
        }
      }
    }
  }
}

void check_frame(const FrameData& f) {
  if (f.width < 1 || f.height < 1 || f.width > 65535 || f.height > 65535) {
    throw std::invalid_argument("image size out of JPEG's range 1..65535");
  }
  if (f.components.size() != 1 && f.components.size() != 3) {
    throw std::invalid_argument("JFIF takes 1 or 3 components");
  }
  if (f.restart_interval < 0 || f.restart_interval > 65535) {
    throw std::invalid_argument("restart interval out of 0..65535");
  }
  int hmax = 1, vmax = 1;
  for (const auto& c : f.components) {
    if (c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4) throw std::invalid_argument("sampling factor out of 1..4");
    hmax = std::max<int>(hmax, c.h);
    vmax = std::max<int>(vmax, c.v);
  }
  for (const auto& c : f.components) {
    if (c.quant_table >= f.quant_tables.size() || c.huffman_table > 1 || c.coefficients == nullptr) {
      throw std::invalid_argument("component " + std::to_string(c.id) + ": bad table index or no data");
    }
    int want_w, want_h;
    if (f.components.size() == 1) {
      want_w = (f.width + 7) / 8;
      want_h = (f.height + 7) / 8;
    } else {
      want_w = (f.width + 8 * hmax - 1) / (8 * hmax) * c.h;
      want_h = (f.height + 8 * vmax - 1) / (8 * vmax) * c.v;
    }
    if (c.blocks_w != want_w || c.blocks_h != want_h) {
      throw std::invalid_argument("component " + std::to_string(c.id) + ": block grid " +
                                  std::to_string(c.blocks_w) + "x" + std::to_string(c.blocks_h) +
                                  ", expected " + std::to_string(want_w) + "x" + std::to_string(want_h));
    }
  }
  for (const auto& t : f.quant_tables) {
    for (auto q : t) {
      if (q < 1 || q > 255) throw std::invalid_argument("quantization value out of 1..255");
    }
  }
}

class ByteSink {
 public:
  explicit ByteSink(size_t capacity) : out_(capacity) {}
  // What was written, once all is.
  std::vector<uint8_t> take() && {
    out_.resize(size_);
    return std::move(out_);
  }
  void byte(uint8_t b) {
    room(1);
    out_[size_++] = b;
  }
  void word(int w) {
    byte(static_cast<uint8_t>(w >> 8));
    byte(static_cast<uint8_t>(w & 0xFF));
  }
  void marker(uint8_t m) {
    byte(0xFF);
    byte(m);
  }
  // Entropy-coded bits, most significant first, with 0xFF stuffing: the
  // `length` (at most 32) low bits of `value`, which has no other bits set.
  // Full 32-bit words leave together unless one of their bytes is 0xFF.
  void bits(uint32_t value, int length) {
    acc_ = (acc_ << length) | value;
    count_ += length;
    if (count_ < 32) return;
    count_ -= 32;
    const auto word = static_cast<uint32_t>(acc_ >> count_);
    const uint32_t inverse = ~word;  // a 0xFF byte is a zero byte here
    if (((inverse - 0x01010101u) & ~inverse & 0x80808080u) == 0) {
      room(4);
      for (int shift = 24; shift >= 0; shift -= 8) out_[size_++] = static_cast<uint8_t>(word >> shift);
    } else {
      for (int shift = 24; shift >= 0; shift -= 8) stuffed(static_cast<uint8_t>(word >> shift));
    }
  }
  // Pads the last byte with 1-bits, as T.81 F.1.2.3 asks before a marker.
  void align() {
    if (count_ % 8 != 0) bits((1u << (8 - count_ % 8)) - 1u, 8 - count_ % 8);
    for (; count_ > 0; count_ -= 8) stuffed(static_cast<uint8_t>(acc_ >> (count_ - 8)));
  }

 private:
  void stuffed(uint8_t b) {
    byte(b);
    if (b == 0xFF) byte(0x00);
  }
  void room(size_t n) {
    if (size_ + n > out_.size()) out_.resize(std::max(2 * out_.size(), size_ + n));
  }

  std::vector<uint8_t> out_;
  size_t size_ = 0;
  uint64_t acc_ = 0;  // the last count_ bits are pending
  int count_ = 0;
};

}  // namespace

HuffmanCodes huffman_codes(const HuffmanSpec& spec) {
  HuffmanCodes out;
  size_t total = 0;
  for (auto b : spec.bits) total += b;
  if (total != spec.values.size() || total > 256) {
    throw std::invalid_argument("Huffman table: counts and symbols disagree");
  }
  uint32_t code = 0;
  size_t k = 0;
  for (int length = 1; length <= 16; ++length) {
    for (int i = 0; i < spec.bits[length - 1]; ++i, ++k) {
      out.code[spec.values[k]] = static_cast<uint16_t>(code);
      out.length[spec.values[k]] = static_cast<uint8_t>(length);
      ++code;
    }
    // Every code of this length must fit in `length` bits (no over-subscription).
    if (code > (1u << length)) throw std::invalid_argument("Huffman table: over-subscribed");
    code <<= 1;
  }
  return out;
}

HuffmanSpec optimal_huffman(const std::array<uint32_t, 256>& frequencies) {
  // T.81 K.2, as libjpeg implements it: symbol 256 reserves the all-ones code.
  std::array<long, 257> freq{};
  for (size_t i = 0; i < 256; ++i) freq[i] = frequencies[i];
  freq[256] = 1;
  std::array<int, 257> codesize{};
  std::array<int, 257> others;
  others.fill(-1);
  for (;;) {
    int c1 = -1, c2 = -1;
    long v = std::numeric_limits<long>::max();
    for (int i = 0; i <= 256; ++i) {
      if (freq[i] != 0 && freq[i] <= v) {
        v = freq[i];
        c1 = i;
      }
    }
    v = std::numeric_limits<long>::max();
    for (int i = 0; i <= 256; ++i) {
      if (freq[i] != 0 && freq[i] <= v && i != c1) {
        v = freq[i];
        c2 = i;
      }
    }
    if (c2 < 0) break;
    freq[c1] += freq[c2];
    freq[c2] = 0;
    ++codesize[c1];
    while (others[c1] >= 0) {
      c1 = others[c1];
      ++codesize[c1];
    }
    others[c1] = c2;
    ++codesize[c2];
    while (others[c2] >= 0) {
      c2 = others[c2];
      ++codesize[c2];
    }
  }
  std::array<int, 33> bits{};
  for (int i = 0; i <= 256; ++i) {
    if (codesize[i] != 0) {
      if (codesize[i] > 32) throw std::logic_error("Huffman code length over 32");
      ++bits[codesize[i]];
    }
  }
  for (int i = 32; i > 16; --i) {
    while (bits[i] > 0) {
      int j = i - 2;
      while (bits[j] == 0) --j;
      bits[i] -= 2;
      bits[i - 1] += 1;
      bits[j + 1] += 2;
      bits[j] -= 1;
    }
  }
  int i = 16;
  while (bits[i] == 0) --i;
  bits[i] -= 1;  // the reserved code
  HuffmanSpec spec;
  for (int l = 1; l <= 16; ++l) spec.bits[l - 1] = static_cast<uint8_t>(bits[l]);
  for (int l = 1; l <= 32; ++l) {
    for (int s = 0; s < 256; ++s) {
      if (codesize[s] == l) spec.values.push_back(static_cast<uint8_t>(s));
    }
  }
  return spec;
}

namespace {

// The DC and AC Huffman tables of a frame (one pair for grey, two for colour).
struct FrameHuffman {
  int tables = 1;
  std::array<HuffmanSpec, 2> dc_spec = {standard_dc_luma(), standard_dc_chroma()};
  std::array<HuffmanSpec, 2> ac_spec = {standard_ac_luma(), standard_ac_chroma()};
  std::array<HuffmanCodes, 2> dc_codes, ac_codes;
};

// Huffman tables: the standard ones, or with optimize_huffman built from this
// image's symbol counts.
FrameHuffman frame_huffman(const FrameData& f) {
  FrameHuffman h;
  h.tables = f.components.size() == 3 ? 2 : 1;
  if (f.optimize_huffman) {
    std::array<std::array<uint32_t, 256>, 2> dc_freq{}, ac_freq{};
    std::vector<int> pred(f.components.size(), 0);
    scan_blocks(
        f,
        [&](size_t ci, const int16_t* block) {
          const int t = f.components[ci].huffman_table;
          block_symbols(block, pred[ci], [&](bool ac, uint8_t symbol, uint32_t, int) {
            ++(ac ? ac_freq : dc_freq)[t][symbol];
          });
        },
        [&](int) { std::fill(pred.begin(), pred.end(), 0); });
    for (int t = 0; t < h.tables; ++t) {
      h.dc_spec[t] = optimal_huffman(dc_freq[t]);
      h.ac_spec[t] = optimal_huffman(ac_freq[t]);
    }
  }
  for (int t = 0; t < h.tables; ++t) {
    h.dc_codes[t] = huffman_codes(h.dc_spec[t]);
    h.ac_codes[t] = huffman_codes(h.ac_spec[t]);
  }
  return h;
}

// SOI, APP0 (JFIF 1.01, no units, 1:1, no thumbnail), DQT (every table in
// one segment, zigzag order) and SOF0.
void write_frame_header(ByteSink& s, const FrameData& f) {
  s.marker(marker::kSOI);
  s.marker(marker::kAPP0);
  s.word(16);
  for (char ch : {'J', 'F', 'I', 'F', '\0'}) s.byte(static_cast<uint8_t>(ch));
  for (int b : {1, 1, 0, 0, 1, 0, 1, 0, 0}) s.byte(static_cast<uint8_t>(b));
  s.marker(marker::kDQT);
  s.word(2 + 65 * static_cast<int>(f.quant_tables.size()));
  for (size_t t = 0; t < f.quant_tables.size(); ++t) {
    s.byte(static_cast<uint8_t>(t));
    for (int k = 0; k < 64; ++k) s.byte(static_cast<uint8_t>(f.quant_tables[t][kNaturalOrder[k]]));
  }
  s.marker(marker::kSOF0);
  s.word(8 + 3 * static_cast<int>(f.components.size()));
  s.byte(8);
  s.word(f.height);
  s.word(f.width);
  s.byte(static_cast<uint8_t>(f.components.size()));
  for (const auto& c : f.components) {
    s.byte(c.id);
    s.byte(static_cast<uint8_t>((c.h << 4) | c.v));
    s.byte(c.quant_table);
  }
}

// DHT (every table in one segment), DRI when restarts are on, and SOS.
void write_scan_header(ByteSink& s, const FrameData& f, const FrameHuffman& h) {
  s.marker(marker::kDHT);
  int dht_length = 2;
  for (int t = 0; t < h.tables; ++t) {
    dht_length += 17 + static_cast<int>(h.dc_spec[t].values.size());
    dht_length += 17 + static_cast<int>(h.ac_spec[t].values.size());
  }
  s.word(dht_length);
  for (int t = 0; t < h.tables; ++t) {
    for (int ac = 0; ac < 2; ++ac) {
      const auto& spec = ac ? h.ac_spec[t] : h.dc_spec[t];
      s.byte(static_cast<uint8_t>((ac << 4) | t));
      for (auto b : spec.bits) s.byte(b);
      for (auto v : spec.values) s.byte(v);
    }
  }
  if (f.restart_interval > 0) {
    s.marker(marker::kDRI);
    s.word(4);
    s.word(f.restart_interval);
  }
  s.marker(marker::kSOS);
  s.word(6 + 2 * static_cast<int>(f.components.size()));
  s.byte(static_cast<uint8_t>(f.components.size()));
  for (const auto& c : f.components) {
    s.byte(c.id);
    s.byte(static_cast<uint8_t>((c.huffman_table << 4) | c.huffman_table));
  }
  s.byte(0);
  s.byte(63);
  s.byte(0);
}

// The entropy-coded scan, with RSTn markers, then EOI.
void write_scan(ByteSink& s, const FrameData& f, const FrameHuffman& h) {
  std::vector<int> pred(f.components.size(), 0);
  scan_blocks(
      f,
      [&](size_t ci, const int16_t* block) {
        const int t = f.components[ci].huffman_table;
        block_symbols(block, pred[ci], [&](bool ac, uint8_t symbol, uint32_t extra, int extra_len) {
          const auto& codes = ac ? h.ac_codes[t] : h.dc_codes[t];
          if (codes.length[symbol] == 0) throw std::logic_error("symbol without a Huffman code");
          // One write of at most 16 + 11 bits: the code, then the extra bits.
          const uint32_t mask = (1u << extra_len) - 1u;
          s.bits((static_cast<uint32_t>(codes.code[symbol]) << extra_len) | (extra & mask),
                 codes.length[symbol] + extra_len);
        });
      },
      [&](int n) {
        s.align();
        s.marker(static_cast<uint8_t>(marker::kRST0 + (n % 8)));
        std::fill(pred.begin(), pred.end(), 0);
      });
  s.align();
  s.marker(marker::kEOI);
}

}  // namespace

std::vector<uint8_t> write_jpeg(const FrameData& f) {
  check_frame(f);
  const auto huffman = frame_huffman(f);
  ByteSink s(static_cast<size_t>(f.width) * f.height / 4 + 1024);
  write_frame_header(s, f);
  write_scan_header(s, f, huffman);
  write_scan(s, f, huffman);
  return std::move(s).take();
}

}  // namespace devparity::jpeg
