#pragma once
/// Deterministic random numbers that do not depend on the LibTorch version, so
/// that the same seed gives the same input bytes in every release we compare.

#include <cstdint>
#include <string_view>

namespace devparity {

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and good enough for test
/// images; also used to derive independent seeds.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  /// Next 64 random bits.
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

/// A seed for one purpose ("noise-1x3x17x11") derived from a base seed.
inline uint64_t derive_seed(uint64_t base, std::string_view salt) {
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a
  for (char c : salt) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return SplitMix64(base ^ hash).next();
}

}  // namespace devparity
