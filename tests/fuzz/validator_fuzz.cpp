// libFuzzer target: the validator, the stream splitter and the strict
// decoder must neither crash, nor hang, nor touch memory they do not own, on
// any bytes. Built with clang (ASan + UBSan) by tests/CMakeLists.txt and run
// for a bounded time by ctest (JpegValidatorFuzz).

#include "harness/jpeg/validator.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace devparity::jpeg;
  DecodeLimits limits;
  limits.max_pixels = int64_t{1} << 22;  // keeps each run fast; bigger frames are refused
  limits.max_scans = 64;
  Expectation expect;
  expect.width = 16;
  const auto r = validate(data, size, expect, nullptr, limits);
  if (r.verdict != Verdict::kCorrupt && r.end != size) __builtin_trap();  // a valid file ends at EOI
  for (const auto& [begin, end] : split_stream(data, size)) {
    if (begin >= end || end > size) __builtin_trap();
  }
  if (r.verdict != Verdict::kCorrupt) {
    const auto c = read_coefficients_strict(data, size, limits);
    if (!c.ok && c.error.empty()) __builtin_trap();
  }
  return 0;
}
