#pragma once
/// Content checks for JPEG files. A flipped bit in entropy-coded data, or an
/// encoder that read its buffer before it was written, can give a file that
/// every validator accepts and that decodes to noise: only comparing with the
/// source tells. Torch-free (libjpeg-turbo's TurboJPEG API).

#include <cstddef>
#include <cstdint>
#include <string>

namespace devparity::jpeg {

/// PSNR in dB between two 8-bit buffers of `n` samples; infinity when equal.
double psnr(const uint8_t* a, const uint8_t* b, size_t n);

/// The PSNR a natural image keeps at `quality` (conservative; see docs/jpeg.md).
double quality_floor_db(int quality);

/// What libjpeg-turbo itself reaches on `source` (interleaved, 1 or 3
/// channels) encoding at `quality` with `subsampling` ("4:2:0", "4:4:4",
/// "4:2:2" or "grey") and decoding again.
struct TurboRoundTrip {
  bool ok = false;
  std::string error;
  double psnr = 0.0;
  size_t bytes = 0;
};
TurboRoundTrip turbo_round_trip(const uint8_t* source, int width, int height, int channels,
                                int quality, const std::string& subsampling);

/// The floor a file encoded from `source` at `quality` must reach: the
/// quality floor, lowered to libjpeg-turbo's own PSNR minus `margin_db` on
/// content it cannot reach the quality floor on (noise, fine texture).
struct PsnrFloor {
  double floor_db = 0.0;
  double quality_floor_db = 0.0;
  double reference_db = 0.0;  ///< libjpeg-turbo's PSNR (0 when it failed)
  std::string basis;          ///< how the floor was chosen, for reports
};
PsnrFloor psnr_floor(const uint8_t* source, int width, int height, int channels, int quality,
                     const std::string& subsampling, double margin_db = 1.0);

}  // namespace devparity::jpeg
