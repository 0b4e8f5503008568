#include "harness/jpeg/assess.h"

#include "harness/jpeg/tables.h"

#include <cstdio>

namespace devparity::jpeg {

Assessment assess(const uint8_t* data, size_t size, const AssessOptions& options) {
  Assessment a;
  Expectation expect = options.expect;
  if (options.source != nullptr) {
    if (!expect.width) expect.width = options.source->width;
    if (!expect.height) expect.height = options.source->height;
    if (!expect.components) expect.components = options.source->channels;
  }
  Decoded decoded;
  a.inspection = validate(data, size, expect, &decoded, options.limits);
  a.verdict = verdict_name(a.inspection.verdict);
  a.reason = a.inspection.reason;
  a.offset = a.inspection.offset;
  if (a.inspection.verdict != Verdict::kValid || options.source == nullptr) return a;

  const auto& src = *options.source;
  if (options.quality) {
    a.quality = *options.quality;
  } else if (!a.inspection.components.empty()) {
    const auto& table = a.inspection.quant_tables[static_cast<size_t>(a.inspection.components[0].quant_table)];
    if (table.size() == 64) {
      std::array<uint16_t, 64> t{};
      std::copy(table.begin(), table.end(), t.begin());
      a.quality = estimate_quality(t);
      a.quality_estimated = true;
    }
  }
  a.psnr = psnr(src.pixels, decoded.pixels.data(), decoded.pixels.size());
  char buf[256];
  if (options.min_psnr) {
    PsnrFloor f;
    f.floor_db = *options.min_psnr;
    f.basis = "--min-psnr";
    a.floor = f;
  } else {
    a.floor = psnr_floor(src.pixels, src.width, src.height, src.channels, a.quality > 0 ? a.quality : 75,
                         a.inspection.subsampling(), options.margin_db);
  }
  if (*a.psnr < a.floor->floor_db) {
    a.verdict = "noise";
    std::snprintf(buf, sizeof buf, "decodes to something far from the source: PSNR %.2f dB < %.2f dB (%s)",
                  *a.psnr, a.floor->floor_db, a.floor->basis.c_str());
    a.reason = buf;
  }
  return a;
}

}  // namespace devparity::jpeg
