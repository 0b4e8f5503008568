#include "harness/base/npy_array.h"

#include "harness/base/error.h"
#include "harness/base/input_file.h"
#include "harness/base/text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <regex>

namespace devparity {
namespace {

bool host_little_endian() {
  const uint16_t one = 1;
  uint8_t first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

bool supported(char kind, int size) {
  switch (kind) {
    case 'b': return size == 1;
    case 'u': return size == 1;
    case 'i': return size == 1 || size == 2 || size == 4 || size == 8;
    case 'f': return size == 2 || size == 4 || size == 8;
    default: return false;
  }
}

float half_to_float(uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return sign ? -magnitude : magnitude;
}

template <typename T>
double load(const std::string& data, size_t i) {
  T v;
  std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
  return static_cast<double>(v);
}

// Fortran order holds the array transposed: element (i0, ..., in) sits where
// C order over the reversed shape puts (in, ..., i0).
std::string c_order_of_fortran(const std::string& stored, const std::vector<int64_t>& shape, int itemsize) {
  const size_t n = shape.size();
  std::vector<size_t> fortran_stride(n, 1);
  for (size_t k = 1; k < n; ++k) fortran_stride[k] = fortran_stride[k - 1] * static_cast<size_t>(shape[k - 1]);
  std::string out(stored.size(), '\0');
  std::vector<int64_t> index(n, 0);
  const size_t count = stored.size() / static_cast<size_t>(itemsize);
  for (size_t c = 0; c < count; ++c) {
    size_t from = 0;
    for (size_t k = 0; k < n; ++k) from += static_cast<size_t>(index[k]) * fortran_stride[k];
    std::memcpy(&out[c * itemsize], &stored[from * itemsize], static_cast<size_t>(itemsize));
    for (size_t k = n; k-- > 0;) {  // the next C-order index
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace

size_t NpyArray::numel() const { return data.size() / static_cast<size_t>(itemsize); }

double NpyArray::value(size_t i) const {
  switch (kind) {
    case 'b':
    case 'u': return static_cast<double>(static_cast<uint8_t>(data[i]));
    case 'i':
      if (itemsize == 1) return load<int8_t>(data, i);
      if (itemsize == 2) return load<int16_t>(data, i);
      if (itemsize == 4) return load<int32_t>(data, i);
      return load<int64_t>(data, i);
    default:
      if (itemsize == 2) {
        uint16_t h;
        std::memcpy(&h, data.data() + i * 2, 2);
        return half_to_float(h);
      }
      if (itemsize == 4) return load<float>(data, i);
      return load<double>(data, i);
  }
}

NpyArray read_npy_array(const std::string& path) {
  const std::string file = read_input_file(path);
  auto fail = [&](const std::string& why) {
    return InputError(fmt::format("{}: not a readable .npy file: {}", path, why));
  };
  if (file.size() < 10 || file.compare(0, 6, "\x93NUMPY") != 0) throw fail("missing the \\x93NUMPY magic");
  const int major = static_cast<unsigned char>(file[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(file[8]) | (static_cast<unsigned char>(file[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) throw fail("truncated header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(file[8 + i]);
    offset = 12;
  } else {
    throw fail(fmt::format("unsupported format version {}", major));
  }
  if (file.size() < offset + header_len) throw fail("truncated header");
  const std::string header = file.substr(offset, header_len);
  offset += header_len;

  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([<>|=])([A-Za-z])(\d+)')"))) {
    throw fail("no 'descr' in the header (structured dtypes are not supported)");
  }
  const char order = m[1].str()[0];
  NpyArray a;
  a.kind = m[2].str()[0];
  a.itemsize = m[3].length() <= 2 ? std::stoi(m[3].str()) : 0;  // (a longer one is no dtype: refused below)
  if (!supported(a.kind, a.itemsize)) {
    const auto descr = order + m[2].str() + m[3].str();
    // numpy has no bfloat16: ml_dtypes' (torch's .numpy() of a view) is written as raw 2-byte data.
    const auto hint = a.kind == 'V' && a.itemsize == 2
                          ? "; raw 2-byte data is how numpy saves bfloat16 (ml_dtypes), which .npy cannot name: "
                            "save it as float32 (array.astype(numpy.float32))"
                          : "";
    throw fail(fmt::format("unsupported dtype '{}' (devparity reads bool, uint8, int8/16/32/64 and float16/32/64){}",
                           descr, hint));
  }
  bool fortran = false;
  if (std::regex_search(header, m, std::regex(R"('fortran_order'\s*:\s*(True|False))"))) {
    fortran = m[1].str() == "True";
  } else {
    throw fail("no 'fortran_order' in the header");
  }
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) {
    throw fail("no 'shape' in the header");
  }
  const std::string dims = m[1].str();
  uint64_t bytes = static_cast<uint64_t>(a.itemsize);
  for (const auto& item : split(dims, ',')) {  // "(5,)" and "()" too
    uint64_t dim = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), dim);
    if (error != std::errc() || end != item.data() + item.size() || dim > static_cast<uint64_t>(INT64_MAX) ||
        __builtin_mul_overflow(bytes, dim, &bytes)) {
      throw fail(fmt::format("'shape': ({}) is not a tuple of sizes whose bytes fit in memory", dims));
    }
    a.shape.push_back(static_cast<int64_t>(dim));
  }
  if (file.size() - offset < bytes) {
    throw fail(fmt::format("data is {} bytes, the header promises {}", file.size() - offset, bytes));
  }
  a.data = file.substr(offset, bytes);
  const bool swap = a.itemsize > 1 && ((order == '>' && host_little_endian()) ||
                                       (order == '<' && !host_little_endian()));
  if (swap) {
    for (size_t i = 0; i < bytes; i += static_cast<size_t>(a.itemsize)) {
      std::reverse(a.data.begin() + i, a.data.begin() + i + a.itemsize);
    }
  }
  if (fortran && a.shape.size() > 1) a.data = c_order_of_fortran(a.data, a.shape, a.itemsize);
  return a;
}

std::string npy_file(const std::string& descr, const std::vector<int64_t>& shape, const void* data, size_t bytes) {
  std::vector<std::string> dims;
  for (auto d : shape) dims.push_back(std::to_string(d));
  std::string tuple = fmt::format("{}", fmt::join(dims, ", "));
  if (shape.size() == 1) tuple += ",";  // a one-element tuple: "(5,)"
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, tuple);
  // Pad with spaces so that the data starts on a 64-byte boundary.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(data), bytes);
  return out;
}

}  // namespace devparity
