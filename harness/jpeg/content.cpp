#include "harness/jpeg/content.h"

#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

namespace devparity::jpeg {

double psnr(const uint8_t* a, const uint8_t* b, size_t n) {
  if (n == 0) return std::numeric_limits<double>::infinity();
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    sum += d * d;
  }
  if (sum == 0.0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(255.0 * 255.0 * static_cast<double>(n) / sum);
}

double quality_floor_db(int quality) {
  // Lower bounds for photographs and smooth synthetic images; libjpeg-turbo
  // typically lands 3-10 dB above these (EncoderTest.DecodesStrictlyAboveTheFloorAtEveryQuality
  // checks the reference encoder against both, on four patterns).
  if (quality >= 90) return 32.0;
  if (quality >= 75) return 28.0;
  if (quality >= 50) return 26.0;
  if (quality >= 25) return 23.0;
  if (quality >= 10) return 20.0;
  return 16.0;
}

namespace {

struct Handle {
  tjhandle h;
  explicit Handle(tjhandle handle) : h(handle) {}
  ~Handle() {
    if (h != nullptr) tjDestroy(h);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

int turbo_subsampling(const std::string& s, int channels) {
  if (channels == 1 || s == "grey") return TJSAMP_GRAY;
  if (s == "4:4:4") return TJSAMP_444;
  if (s == "4:2:2") return TJSAMP_422;
  return TJSAMP_420;
}

}  // namespace

TurboRoundTrip turbo_round_trip(const uint8_t* source, int width, int height, int channels,
                                int quality, const std::string& subsampling) {
  TurboRoundTrip out;
  if (channels != 1 && channels != 3) {
    out.error = "1 or 3 channels";
    return out;
  }
  Handle enc(tjInitCompress()), dec(tjInitDecompress());
  if (enc.h == nullptr || dec.h == nullptr) {
    out.error = "TurboJPEG could not start";
    return out;
  }
  const int format = channels == 1 ? TJPF_GRAY : TJPF_RGB;
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  if (tjCompress2(enc.h, source, width, 0, height, format, &jpeg, &size,
                  turbo_subsampling(subsampling, channels), std::clamp(quality, 1, 100), 0) != 0) {
    out.error = tjGetErrorStr2(enc.h);
    tjFree(jpeg);
    return out;
  }
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> owned(jpeg, [](unsigned char* p) { tjFree(p); });
  std::vector<uint8_t> decoded(static_cast<size_t>(width) * height * channels);
  if (tjDecompress2(dec.h, jpeg, size, decoded.data(), width, 0, height, format, 0) != 0) {
    out.error = tjGetErrorStr2(dec.h);
    return out;
  }
  out.ok = true;
  out.bytes = size;
  out.psnr = psnr(source, decoded.data(), decoded.size());
  return out;
}

PsnrFloor psnr_floor(const uint8_t* source, int width, int height, int channels, int quality,
                     const std::string& subsampling, double margin_db) {
  PsnrFloor f;
  f.quality_floor_db = quality_floor_db(quality);
  f.floor_db = f.quality_floor_db;
  const auto ref = turbo_round_trip(source, width, height, channels, quality, subsampling);
  char buf[160];
  if (!ref.ok) {
    f.basis = "quality floor (libjpeg-turbo reference failed: " + ref.error + ")";
    return f;
  }
  f.reference_db = ref.psnr;
  if (ref.psnr - margin_db < f.floor_db) {
    f.floor_db = ref.psnr - margin_db;
    std::snprintf(buf, sizeof buf, "libjpeg-turbo reaches %.2f dB on this content; floor %.2f dB below it",
                  ref.psnr, margin_db);
  } else {
    std::snprintf(buf, sizeof buf, "quality %d floor (libjpeg-turbo reaches %.2f dB)", quality, ref.psnr);
  }
  f.basis = buf;
  return f;
}

}  // namespace devparity::jpeg
