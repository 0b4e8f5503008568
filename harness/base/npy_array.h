#pragma once
/// A .npy file's array as bytes, shape and element type, without LibTorch:
/// what read_npy() makes a tensor of, and what the report commands (the HTML
/// page's images) read directly.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace devparity {

/// One .npy array: elements in C order and the host's byte order.
struct NpyArray {
  char kind = 'f';              ///< numpy's kind: b (bool), i, u, f
  int itemsize = 4;             ///< bytes per element
  std::vector<int64_t> shape;   ///< () for a scalar
  std::string data;             ///< shape's product x itemsize bytes

  /// Elements in all.
  size_t numel() const;
  /// Element `i` (C order) as a double; float16 exactly.
  double value(size_t i) const;
};

/// Reads a .npy file (format versions 1.0-3.0): bool, int8/16/32/64, uint8,
/// float16/32/64, either byte order, C or Fortran order. Throws InputError
/// naming the path and what is wrong.
NpyArray read_npy_array(const std::string& path);

/// The .npy file (version 1.0, C order, little-endian descr as the host
/// writes it) holding `shape` and `data` of `descr` ("<f4", "|u1").
std::string npy_file(const std::string& descr, const std::vector<int64_t>& shape, const void* data, size_t bytes);

}  // namespace devparity
