#include "harness/base/npy.h"

#include "harness/base/atomic_file.h"
#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/npy_array.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

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

}  // namespace

at::Tensor read_npy(const std::string& path) {
  const auto a = read_npy_array(path);
  for (const auto& t : kTypes) {
    if (t.kind == a.kind && t.size == a.itemsize) {
      auto out = at::empty(a.shape, at::TensorOptions().dtype(t.type));
      std::memcpy(out.data_ptr(), a.data.data(), a.data.size());
      return out;
    }
  }
  throw InputError(fmt::format("{}: not a readable .npy file: unsupported dtype '{}{}'", path, a.kind, a.itemsize));
}

void write_npy(const std::string& path, const at::Tensor& tensor) {
  // .npy has no bfloat16: float32 holds every bfloat16 value exactly.
  const auto t = tensor.to(at::kCPU, tensor.scalar_type() == at::kBFloat16 ? at::kFloat : tensor.scalar_type())
                     .contiguous();
  write_file_atomic(path, npy_file(descr_of(t.scalar_type()), t.sizes().vec(), t.data_ptr(),
                                    static_cast<size_t>(t.nbytes())));
}

}  // namespace devparity
