#include "harness/jpeg/validator.h"

#include "harness/jpeg/tables.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

namespace devparity::jpeg {
namespace {

std::string hex(int v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", v & 0xFF);
  return buf;
}

std::string marker_name(uint8_t m) {
  if (m >= 0xE0 && m <= 0xEF) return "APP" + std::to_string(m - 0xE0);
  if (m >= 0xD0 && m <= 0xD7) return "RST" + std::to_string(m - 0xD0);
  switch (m) {
    case 0xC0: return "SOF0";
    case 0xC1: return "SOF1";
    case 0xC2: return "SOF2";
    case 0xC4: return "DHT";
    case 0xD8: return "SOI";
    case 0xD9: return "EOI";
    case 0xDA: return "SOS";
    case 0xDB: return "DQT";
    case 0xDD: return "DRI";
    case 0xFE: return "COM";
    default: return "marker " + hex(m);
  }
}

struct Walker {
  Walker(const uint8_t* data, size_t n, bool stop) : d(data), size(n), stop_at_eoi(stop) {}
  const uint8_t* d;
  size_t size;
  bool stop_at_eoi;  // split_stream: bytes after EOI belong to the next file
  Inspection out;
  bool sof = false;
  bool done = false;
  std::array<bool, 4> dc_defined{}, ac_defined{}, qt_defined{};
  std::optional<std::string> mismatch;

  bool fail(size_t at, std::string why) {
    out.verdict = Verdict::kCorrupt;
    out.reason = std::move(why);
    out.offset = at;
    return false;
  }
  int u16(size_t at) const { return (d[at] << 8) | d[at + 1]; }

  bool run(const Expectation& expect) {
    if (size < 2 || d[0] != 0xFF || d[1] != marker::kSOI) {
      return fail(0, "no SOI marker at the start (not a JPEG file)");
    }
    out.markers.push_back("SOI");
    size_t pos = 2;
    while (!done) {
      if (pos >= size) return fail(size, "the file ends without an EOI marker");
      if (d[pos] != 0xFF) {
        return fail(pos, "expected a marker, found " + hex(d[pos]));
      }
      while (pos < size && d[pos] == 0xFF) ++pos;  // fill bytes
      if (pos >= size) return fail(size, "the file ends inside a marker");
      const uint8_t m = d[pos];
      const size_t at = pos - 1;
      ++pos;
      out.markers.push_back(marker_name(m));
      if (m == marker::kEOI) {
        if (out.scans == 0) return fail(at, "EOI before any scan");
        out.end = pos;
        done = true;
        break;
      }
      if (m == marker::kSOI) return fail(at, "a second SOI marker");
      if (m >= 0xD0 && m <= 0xD7) return fail(at, marker_name(m) + " outside entropy-coded data");
      if (m == 0x00 || m == 0x01 || (m >= 0x02 && m <= 0xBF)) {
        return fail(at, "unexpected " + marker_name(m));
      }
      if (pos + 2 > size) return fail(pos, marker_name(m) + ": the file ends inside the segment length");
      const int length = u16(pos);
      if (length < 2) return fail(pos, marker_name(m) + ": segment length " + std::to_string(length) + " < 2");
      if (pos + static_cast<size_t>(length) > size) {
        return fail(pos, marker_name(m) + ": segment length " + std::to_string(length) +
                             " runs past the end of the file (" + std::to_string(size - pos) +
                             " bytes left)");
      }
      const size_t body = pos + 2, end = pos + static_cast<size_t>(length);
      bool ok = true;
      switch (m) {
        case 0xC0: case 0xC1: case 0xC2: ok = sof_segment(m, at, body, end, expect); break;
        case 0xC4: ok = dht_segment(body, end); break;
        case 0xDB: ok = dqt_segment(body, end); break;
        case 0xDD:
          if (length != 4) return fail(pos, "DRI: length " + std::to_string(length) + ", expected 4");
          out.restart_interval = u16(body);
          break;
        case 0xDA: {
          size_t next = 0;
          ok = sos_segment(at, body, end, &next);
          if (ok) {
            pos = next;
            continue;
          }
          break;
        }
        case 0xC3: case 0xC5: case 0xC6: case 0xC7: case 0xC9: case 0xCA: case 0xCB: case 0xCD:
        case 0xCE: case 0xCF:
          return fail(at, marker_name(m) + ": lossless, hierarchical or arithmetic JPEG is not supported");
        case 0xC8: case 0xCC: case 0xDC: case 0xDE: case 0xDF:
          return fail(at, "unsupported " + marker_name(m));
        default:
          if (m >= 0xF0 && m <= 0xFD) return fail(at, "reserved " + marker_name(m));
          break;  // APPn, COM: opaque
      }
      if (!ok) return false;
      pos = end;
    }
    if (!stop_at_eoi && out.end != size) {
      return fail(out.end, std::to_string(size - out.end) + " extraneous byte(s) after EOI");
    }
    if (mismatch) {
      out.verdict = Verdict::kMismatch;
      out.reason = *mismatch;
      out.offset = 0;
    }
    return true;
  }

  bool sof_segment(uint8_t m, size_t at, size_t body, size_t end, const Expectation& expect) {
    if (sof) return fail(at, "a second SOF marker");
    sof = true;
    out.progressive = m == 0xC2;
    if (end - body < 6) return fail(body, "SOF: segment too short");
    out.precision = d[body];
    out.height = u16(body + 1);
    out.width = u16(body + 3);
    const int n = d[body + 5];
    if (out.precision != 8 && !(m == 0xC1 && out.precision == 12)) {
      return fail(body, "SOF: sample precision " + std::to_string(out.precision));
    }
    if (out.height == 0) return fail(body + 1, "SOF: height 0 (DNL is not supported)");
    if (out.width == 0) return fail(body + 3, "SOF: width 0");
    if (n < 1 || n > 4) return fail(body + 5, "SOF: " + std::to_string(n) + " components");
    if (end - body != static_cast<size_t>(6 + 3 * n)) {
      return fail(body - 2, "SOF: length " + std::to_string(end - body + 2) + " for " +
                                std::to_string(n) + " components, expected " + std::to_string(8 + 3 * n));
    }
    std::set<int> ids;
    for (int i = 0; i < n; ++i) {
      const size_t c = body + 6 + 3 * static_cast<size_t>(i);
      ComponentInfo info{d[c], d[c + 1] >> 4, d[c + 1] & 15, d[c + 2]};
      if (!ids.insert(info.id).second) return fail(c, "SOF: component id " + std::to_string(info.id) + " twice");
      if (info.h < 1 || info.h > 4 || info.v < 1 || info.v > 4) {
        return fail(c + 1, "SOF: sampling factors " + std::to_string(info.h) + "x" + std::to_string(info.v));
      }
      if (info.quant_table > 3) return fail(c + 2, "SOF: quantization table " + std::to_string(info.quant_table));
      out.components.push_back(info);
    }
    std::vector<std::string> differs;
    if (expect.width && *expect.width != out.width) {
      differs.push_back("width " + std::to_string(out.width) + ", expected " + std::to_string(*expect.width));
    }
    if (expect.height && *expect.height != out.height) {
      differs.push_back("height " + std::to_string(out.height) + ", expected " + std::to_string(*expect.height));
    }
    if (expect.components && *expect.components != n) {
      differs.push_back(std::to_string(n) + " components, expected " + std::to_string(*expect.components));
    }
    if (!differs.empty()) {
      std::string why = "SOF says ";
      for (size_t i = 0; i < differs.size(); ++i) why += (i ? "; " : "") + differs[i];
      mismatch = why;
    }
    return true;
  }

  bool dht_segment(size_t body, size_t end) {
    size_t p = body;
    while (p < end) {
      if (end - p < 17) return fail(p, "DHT: table header runs past the segment");
      const int tc = d[p] >> 4, th = d[p] & 15;
      if (tc > 1 || th > 3) return fail(p, "DHT: table class " + std::to_string(tc) + " id " + std::to_string(th));
      size_t count = 0;
      uint32_t code = 0;
      for (int l = 1; l <= 16; ++l) {
        count += d[p + l];
        code += d[p + l];
        if (code > (1u << l)) return fail(p + l, "DHT: code lengths over-subscribed at length " + std::to_string(l));
        code <<= 1;
      }
      if (count > 256) return fail(p, "DHT: " + std::to_string(count) + " symbols");
      if (p + 17 + count > end) return fail(p, "DHT: symbols run past the segment");
      (tc ? ac_defined : dc_defined)[static_cast<size_t>(th)] = true;
      p += 17 + count;
    }
    return true;
  }

  bool dqt_segment(size_t body, size_t end) {
    size_t p = body;
    while (p < end) {
      const int pq = d[p] >> 4, tq = d[p] & 15;
      if (pq > 1 || tq > 3) return fail(p, "DQT: precision " + std::to_string(pq) + " table " + std::to_string(tq));
      const size_t n = pq ? 128 : 64;
      if (p + 1 + n > end) return fail(p, "DQT: table runs past the segment");
      std::vector<uint16_t> table(64);
      for (size_t k = 0; k < 64; ++k) {
        const int v = pq ? u16(p + 1 + 2 * k) : d[p + 1 + k];
        if (v == 0) return fail(p + 1 + (pq ? 2 * k : k), "DQT: quantization value 0");
        table[kNaturalOrder[k]] = static_cast<uint16_t>(v);
      }
      out.quant_tables[static_cast<size_t>(tq)] = std::move(table);
      qt_defined[static_cast<size_t>(tq)] = true;
      p += 1 + n;
    }
    return true;
  }

  // The scan header, then its entropy-coded data up to the next marker.
  bool sos_segment(size_t at, size_t body, size_t end, size_t* next) {
    if (!sof) return fail(at, "SOS before SOF");
    if (end <= body) return fail(at, "SOS: empty segment");
    const int ns = d[body];
    if (ns < 1 || ns > 4) return fail(body, "SOS: " + std::to_string(ns) + " components");
    if (end - body != static_cast<size_t>(4 + 2 * ns)) {
      return fail(body - 2, "SOS: length " + std::to_string(end - body + 2) + " for " + std::to_string(ns) +
                                " components, expected " + std::to_string(6 + 2 * ns));
    }
    const size_t tail = body + 1 + 2 * static_cast<size_t>(ns);
    const int ss = d[tail], se = d[tail + 1], ah = d[tail + 2] >> 4, al = d[tail + 2] & 15;
    if (!out.progressive) {
      if (ss != 0 || se != 63 || ah != 0 || al != 0) return fail(tail, "SOS: baseline scan needs Ss=0 Se=63 Ah=Al=0");
    } else if (ss > se || se > 63 || (ss == 0 && se != 0) || (ss > 0 && ns != 1) || ah > 13 || al > 13) {
      return fail(tail, "SOS: invalid progressive parameters");
    }
    std::vector<const ComponentInfo*> in_scan;
    if (!scan_components(body, ns, ss, ah, in_scan)) return false;
    ++out.scans;
    int restarts = 0;
    if (!entropy_coded_data(end, next, restarts)) return false;
    if (out.restart_interval > 0) {
      const int64_t mcus = scan_mcus(in_scan);
      const int64_t expected = (mcus + out.restart_interval - 1) / out.restart_interval - 1;
      if (restarts != expected) {
        return fail(*next, std::to_string(restarts) + " RST marker(s) in the scan; " + std::to_string(mcus) +
                               " MCUs at interval " + std::to_string(out.restart_interval) + " need " +
                               std::to_string(expected));
      }
    }
    return true;
  }

  // The scan's component selectors: frame components, each once, with the
  // Huffman and quantization tables the scan needs defined.
  bool scan_components(size_t body, int ns, int ss, int ah, std::vector<const ComponentInfo*>& in_scan) {
    std::set<int> seen;
    for (int i = 0; i < ns; ++i) {
      const size_t c = body + 1 + 2 * static_cast<size_t>(i);
      const int id = d[c], td = d[c + 1] >> 4, ta = d[c + 1] & 15;
      const ComponentInfo* info = nullptr;
      for (const auto& ci : out.components) {
        if (ci.id == id) info = &ci;
      }
      if (info == nullptr) return fail(c, "SOS: component " + std::to_string(id) + " is not in the frame");
      if (!seen.insert(id).second) return fail(c, "SOS: component " + std::to_string(id) + " twice");
      if (td > 3 || ta > 3) return fail(c + 1, "SOS: Huffman table index out of 0..3");
      // Baseline scans use both tables; progressive DC first scans the DC
      // table, AC scans the AC table, DC refinements none.
      const bool needs_dc = !out.progressive || (ss == 0 && ah == 0);
      const bool needs_ac = !out.progressive || ss > 0;
      if (needs_dc && !dc_defined[static_cast<size_t>(td)]) {
        return fail(c + 1, "SOS: DC Huffman table " + std::to_string(td) + " is not defined");
      }
      if (needs_ac && !ac_defined[static_cast<size_t>(ta)]) {
        return fail(c + 1, "SOS: AC Huffman table " + std::to_string(ta) + " is not defined");
      }
      if (!qt_defined[static_cast<size_t>(info->quant_table)]) {
        return fail(c, "SOS: quantization table " + std::to_string(info->quant_table) + " of component " +
                           std::to_string(id) + " is not defined");
      }
      in_scan.push_back(info);
    }
    return true;
  }

  // Entropy-coded data from `end`: 0xFF is followed by 0x00 (a stuffed byte),
  // by RSTn (counted in `restarts`, in sequence), or by the marker that ends
  // the scan, whose offset goes to `next`.
  bool entropy_coded_data(size_t end, size_t* next, int& restarts) {
    size_t p = end;
    bool any = false;
    for (;;) {
      if (p >= size) return fail(size, "entropy-coded data runs to the end of the file (no EOI)");
      if (d[p] != 0xFF) {
        ++p;
        any = true;
        continue;
      }
      size_t q = p + 1;
      while (q < size && d[q] == 0xFF) ++q;
      if (q >= size) return fail(size, "entropy-coded data runs to the end of the file (no EOI)");
      if (d[q] == 0x00) {
        p = q + 1;
        any = true;
        continue;
      }
      if (d[q] >= 0xD0 && d[q] <= 0xD7) {
        if (out.restart_interval == 0) return fail(p, "RST marker without a restart interval (DRI)");
        if (d[q] - 0xD0 != restarts % 8) {
          return fail(p, "RST" + std::to_string(d[q] - 0xD0) + " out of sequence, expected RST" +
                             std::to_string(restarts % 8));
        }
        ++restarts;
        p = q + 1;
        continue;
      }
      if (!any) return fail(end, "empty entropy-coded data");
      *next = p;
      return true;
    }
  }

  int64_t scan_mcus(const std::vector<const ComponentInfo*>& in_scan) const {
    int hmax = 1, vmax = 1;
    for (const auto& c : out.components) {
      hmax = std::max(hmax, c.h);
      vmax = std::max(vmax, c.v);
    }
    auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
    if (in_scan.size() == 1) {
      const auto& c = *in_scan[0];
      const int64_t w = ceil_div(static_cast<int64_t>(out.width) * c.h, hmax);
      const int64_t h = ceil_div(static_cast<int64_t>(out.height) * c.v, vmax);
      return ceil_div(w, 8) * ceil_div(h, 8);
    }
    return ceil_div(out.width, 8 * hmax) * ceil_div(out.height, 8 * vmax);
  }
};

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kValid: return "valid";
    case Verdict::kCorrupt: return "corrupt";
    case Verdict::kMismatch: return "mismatch";
  }
  return "?";
}

std::string Inspection::subsampling() const {
  if (components.size() == 1) return "grey";
  if (components.size() != 3) return "other";
  const auto& y = components[0];
  const bool chroma_1x1 = components[1].h == 1 && components[1].v == 1 && components[2].h == 1 &&
                          components[2].v == 1;
  if (!chroma_1x1) return "other";
  if (y.h == 1 && y.v == 1) return "4:4:4";
  if (y.h == 2 && y.v == 2) return "4:2:0";
  if (y.h == 2 && y.v == 1) return "4:2:2";
  return "other";
}

Inspection inspect(const uint8_t* data, size_t size, const Expectation& expect) {
  Walker w{data, size, false};
  w.run(expect);
  return w.out;
}

Inspection validate(const uint8_t* data, size_t size, const Expectation& expect, Decoded* decoded,
                    const DecodeLimits& limits) {
  auto result = inspect(data, size, expect);
  if (result.verdict == Verdict::kCorrupt) return result;
  if (static_cast<int64_t>(result.width) * result.height > limits.max_pixels) {
    result.verdict = Verdict::kCorrupt;
    result.reason = "frame of " + std::to_string(result.width) + "x" + std::to_string(result.height) +
                    " is over the decode limit";
    result.offset = 0;
    return result;
  }
  Decoded local;
  Decoded& dec = decoded != nullptr ? *decoded : local;
  dec = decode_strict(data, size, limits);
  if (!dec.ok) {
    result.verdict = Verdict::kCorrupt;
    result.reason = "libjpeg: " + dec.error;
    result.offset = dec.offset;
  }
  return result;
}

std::vector<std::pair<size_t, size_t>> split_stream(const uint8_t* data, size_t size) {
  std::vector<std::pair<size_t, size_t>> parts;
  size_t pos = 0;
  while (pos < size) {
    Walker w{data + pos, size - pos, true};
    w.run({});
    if (w.out.verdict == Verdict::kCorrupt || w.out.end == 0) {
      // A broken file ends where the next one's SOI (FF D8 FF) begins, if any.
      size_t next = pos + 2;
      while (next + 2 < size && !(data[next] == 0xFF && data[next + 1] == marker::kSOI && data[next + 2] == 0xFF)) {
        ++next;
      }
      if (next + 2 >= size) {
        parts.emplace_back(pos, size);
        break;
      }
      parts.emplace_back(pos, next);
      pos = next;
      continue;
    }
    parts.emplace_back(pos, pos + w.out.end);
    pos += w.out.end;
  }
  return parts;
}

}  // namespace devparity::jpeg
