#pragma once
/// JPEG validation: a strict walk over the markers and segment lengths, then
/// a strict decode (decode.h). Torch-free; the CLI's jpeg-check, the runner's
/// jpeg check and the fuzz target use this one implementation.

#include "harness/jpeg/decode.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace devparity::jpeg {

enum class Verdict { kValid, kCorrupt, kMismatch };
const char* verdict_name(Verdict v);

/// What the caller knows the file must be.
struct Expectation {
  std::optional<int> width, height, components;
};

struct ComponentInfo {
  int id = 0, h = 1, v = 1, quant_table = 0;
};

struct Inspection {
  Verdict verdict = Verdict::kValid;
  std::string reason;    ///< why not valid
  size_t offset = 0;     ///< byte offset of the problem
  size_t end = 0;        ///< one past EOI: the file's length as its markers say
  int width = 0, height = 0;
  bool progressive = false;
  int precision = 8;
  std::vector<ComponentInfo> components;
  std::vector<std::string> markers;  ///< "SOI", "APP0", "DQT", ... in order
  int scans = 0;
  int restart_interval = 0;
  /// Quantization tables seen, natural order (index 0..3; empty when absent).
  std::array<std::vector<uint16_t>, 4> quant_tables;

  /// "4:2:0", "4:4:4", "4:2:2", "grey" or "other", from the sampling factors.
  std::string subsampling() const;
};

/// The marker walk only: SOI first; every segment's length inside the file and
/// consistent with its contents (DQT, DHT, SOF, SOS, DRI); SOF before SOS;
/// tables defined before the scans that use them; RSTn in sequence and as
/// many as the restart interval implies; entropy-coded data ending at a
/// marker; EOI last with nothing after it. Stops at the first problem.
/// `expect` turns other dimensions into a mismatch.
Inspection inspect(const uint8_t* data, size_t size, const Expectation& expect = {});

/// inspect(), then, when it is valid or a mismatch, a strict decode: any
/// libjpeg error or warning makes the file corrupt. `decoded` receives the
/// pixels when given.
Inspection validate(const uint8_t* data, size_t size, const Expectation& expect = {},
                    Decoded* decoded = nullptr, const DecodeLimits& limits = {});

/// Splits back-to-back JPEG files (the encoder's batched output) at the end
/// of each one's EOI. A part that does not walk cleanly ends where the next
/// SOI (FF D8 FF) begins, or takes the rest.
std::vector<std::pair<size_t, size_t>> split_stream(const uint8_t* data, size_t size);

}  // namespace devparity::jpeg
