#pragma once
/// One verdict per JPEG file, as `devparity jpeg-check` and the runner's jpeg
/// check give it: valid, corrupt, mismatch, or noise (structurally valid but
/// decoding to something far from its source). Torch-free.

#include "harness/jpeg/content.h"
#include "harness/jpeg/validator.h"

#include <optional>
#include <string>

namespace devparity::jpeg {

/// The image a file was encoded from: interleaved HWC samples.
struct SourceImage {
  const uint8_t* pixels = nullptr;
  int width = 0, height = 0, channels = 0;
};

struct Assessment {
  std::string verdict;  ///< "valid", "corrupt", "mismatch" or "noise"
  std::string reason;   ///< empty when valid
  size_t offset = 0;    ///< byte offset for corrupt files
  Inspection inspection;
  int quality = 0;      ///< the quality used for the floor (given, or estimated from DQT)
  bool quality_estimated = false;
  std::optional<double> psnr;  ///< against the source, when there is one and the file decodes
  std::optional<PsnrFloor> floor;

  bool ok() const { return verdict == "valid"; }
};

struct AssessOptions {
  Expectation expect;
  const SourceImage* source = nullptr;
  std::optional<double> min_psnr;  ///< replaces the quality floor
  std::optional<int> quality;      ///< the encoder's setting; else estimated from the file
  double margin_db = 1.0;          ///< below libjpeg-turbo's own PSNR, on hard content
  DecodeLimits limits;
};

Assessment assess(const uint8_t* data, size_t size, const AssessOptions& options);

}  // namespace devparity::jpeg
