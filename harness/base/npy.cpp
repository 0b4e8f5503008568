#include "harness/base/npy.h"

#include "harness/base/atomic_file.h"
#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/input_file.h"
#include "harness/base/text.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

namespace devparity {
namespace {

struct NpyType {
  char kind;  // b i u f
  int size;
  c10::ScalarType type;
};

const NpyType kTypes[] = {
    {'b', 1, at::kBool},  {'i', 1, at::kChar},   {'u', 1, at::kByte},  {'i', 2, at::kShort},
    {'i', 4, at::kInt},   {'i', 8, at::kLong},   {'f', 2, at::kHalf},  {'f', 4, at::kFloat},
    {'f', 8, at::kDouble},
};

std::string descr_of(c10::ScalarType type) {
  for (const auto& t : kTypes) {
    if (t.type == type) {
      return fmt::format("{}{}{}", t.size == 1 ? '|' : '<', t.kind, t.size);
    }
  }
  throw InputError(fmt::format("cannot write {} to .npy", dtype_name(type)));
}

bool host_little_endian() {
  const uint16_t one = 1;
  uint8_t first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

}  // namespace

at::Tensor read_npy(const std::string& path) {
  const std::string data = read_input_file(path);
  auto fail = [&](const std::string& why) {
    return InputError(fmt::format("{}: not a readable .npy file: {}", path, why));
  };
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0) throw fail("missing the \\x93NUMPY magic");
  const int major = static_cast<unsigned char>(data[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(data[8]) | (static_cast<unsigned char>(data[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) throw fail("truncated header");
    header_len = 0;
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(data[8 + i]);
    offset = 12;
  } else {
    throw fail(fmt::format("unsupported format version {}", major));
  }
  if (data.size() < offset + header_len) throw fail("truncated header");
  const std::string header = data.substr(offset, header_len);
  offset += header_len;

  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([<>|=])([a-z])(\d+)')"))) {
    throw fail("no 'descr' in the header (structured dtypes are not supported)");
  }
  const char order = m[1].str()[0];
  const char kind = m[2].str()[0];
  const int size = m[3].length() <= 2 ? std::stoi(m[3].str()) : 0;  // (a longer one is no dtype: refused below)
  const NpyType* type = nullptr;
  for (const auto& t : kTypes) {
    if (t.kind == kind && t.size == size) type = &t;
  }
  if (type == nullptr) throw fail(fmt::format("unsupported dtype '{}{}{}'", order, kind, size));
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
  std::vector<int64_t> shape;
  uint64_t bytes = static_cast<uint64_t>(size);
  for (const auto& item : split(dims, ',')) {  // "(5,)" and "()" too
    uint64_t dim = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), dim);
    if (error != std::errc() || end != item.data() + item.size() || dim > static_cast<uint64_t>(INT64_MAX) ||
        __builtin_mul_overflow(bytes, dim, &bytes)) {
      throw fail(fmt::format("'shape': ({}) is not a tuple of sizes whose bytes fit in memory", dims));
    }
    shape.push_back(static_cast<int64_t>(dim));
  }
  if (data.size() - offset < bytes) {
    throw fail(fmt::format("data is {} bytes, the header promises {}", data.size() - offset, bytes));
  }
  std::vector<int64_t> storage_shape = shape;
  if (fortran) std::reverse(storage_shape.begin(), storage_shape.end());
  auto t = at::empty(storage_shape, at::TensorOptions().dtype(type->type));
  std::memcpy(t.data_ptr(), data.data() + offset, bytes);
  const bool swap = size > 1 && ((order == '>' && host_little_endian()) ||
                                 (order == '<' && !host_little_endian()));
  if (swap) {
    auto* p = static_cast<uint8_t*>(t.data_ptr());
    for (size_t i = 0; i < bytes; i += static_cast<size_t>(size)) std::reverse(p + i, p + i + size);
  }
  if (fortran && shape.size() > 1) {
    std::vector<int64_t> perm(shape.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(perm.size() - 1 - i);
    t = t.permute(perm).contiguous();
  }
  return t;
}

void write_npy(const std::string& path, const at::Tensor& tensor) {
  // .npy has no bfloat16: float32 holds every bfloat16 value exactly.
  const auto t = tensor.to(at::kCPU, tensor.scalar_type() == at::kBFloat16 ? at::kFloat : tensor.scalar_type())
                     .contiguous();
  std::vector<std::string> dims;
  for (auto d : t.sizes()) dims.push_back(std::to_string(d));
  std::string shape = fmt::format("{}", fmt::join(dims, ", "));
  if (t.dim() == 1) shape += ",";  // a one-element tuple: "(5,)"
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                   descr_of(t.scalar_type()), shape);
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
  out.append(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.nbytes()));
  write_file_atomic(path, out);
}

}  // namespace devparity
