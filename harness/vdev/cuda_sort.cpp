// CUDA's order of sort and topk results (Note [CUDA's sort order] in
// vdev/cuda_sort.h).
#include "harness/vdev/cuda_sort.h"

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/WrapDimUtils.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

namespace devparity::vdev::cuda_sort {
namespace {

// SortUtils.cuh's SmallBitonicSort: 16 threads, two slots each.
constexpr size_t kBitonicSlots = 32;
// Sort.cu: the longest slice WarpMergeSort takes; longer ones go to radix sorts.
constexpr size_t kMergeSortMax = 128;
// TensorTopK.cpp's should_use_sort: topk of few, long slices sorts them whole.
constexpr int64_t kTopkSortSlices = 10;
constexpr int64_t kTopkSortLength = 100000;

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return std::isnan(static_cast<double>(v));
  }
}

// LTOp<T, /*handleNaN=*/true> and GTOp<T, true> of SortingCommon.cuh.
template <typename T>
bool nan_last_less(T a, T b) {
  return (is_nan(b) && !is_nan(a)) || a < b;
}
template <typename T>
bool nan_first_greater(T a, T b) {
  return (is_nan(a) && !is_nan(b)) || a > b;
}

// The order of cub's radix sorts (the key's bits, twiddled): -0.0 below
// +0.0; every NaN largest (the Note says why not by its sign bit).
template <typename T>
bool radix_less(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a < b;
  } else {
    const auto x = static_cast<double>(a), y = static_cast<double>(b);
    const bool nx = std::isnan(x), ny = std::isnan(y);
    if (nx || ny) return !nx && ny;
    if (x != y) return x < y;
    return std::signbit(x) && !std::signbit(y);
  }
}

template <typename T>
void bitonic(std::vector<T>& keys, std::vector<int64_t>& values, bool descending) {
  T k[kBitonicSlots];
  int64_t v[kBitonicSlots];
  bool valid[kBitonicSlots];
  for (size_t i = 0; i < kBitonicSlots; ++i) {
    valid[i] = i < keys.size();
    k[i] = valid[i] ? keys[i] : T{};
    v[i] = valid[i] ? values[i] : 0;
  }
  // bitonicSwap: invalid slots sort to the end; equal keys swap where dir is false.
  const auto exchange = [&](size_t a, size_t b, bool dir) {
    const bool comp = descending ? nan_first_greater(k[a], k[b]) : nan_last_less(k[a], k[b]);
    const bool swap = (comp && valid[a]) || !valid[b];
    if (swap == dir) {
      std::swap(k[a], k[b]);
      std::swap(v[a], v[b]);
      std::swap(valid[a], valid[b]);
    }
  };
  const auto pass = [&](size_t stride, size_t size) {
    for (size_t t = 0; t < kBitonicSlots / 2; ++t) {
      const size_t pos = 2 * t - (t & (stride - 1));
      exchange(pos, pos + stride, size != 0 && (t & (size / 2)) != 0);
    }
  };
  for (size_t size = 2; size < kBitonicSlots; size *= 2) {
    for (size_t stride = size / 2; stride > 0; stride /= 2) pass(stride, size);
  }
  for (size_t stride = kBitonicSlots / 2; stride > 0; stride /= 2) pass(stride, 0);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = k[i], values[i] = v[i];
}

// Permutes (keys, values) as sortKeyValueInplace or the stable radix sort does.
template <typename T>
void sort_pairs(std::vector<T>& keys, std::vector<int64_t>& values, bool descending, bool stable) {
  const size_t n = keys.size();
  if (n <= 1) return;
  if (!stable && n <= kBitonicSlots) return bitonic(keys, values, descending);
  std::vector<size_t> rank(n);
  std::iota(rank.begin(), rank.end(), size_t{0});
  if (n <= kMergeSortMax) {
    std::stable_sort(rank.begin(), rank.end(), [&](size_t i, size_t j) {
      return descending ? nan_first_greater(keys[i], keys[j]) : nan_last_less(keys[i], keys[j]);
    });
  } else {
    std::stable_sort(rank.begin(), rank.end(), [&](size_t i, size_t j) {
      return descending ? radix_less(keys[j], keys[i]) : radix_less(keys[i], keys[j]);
    });
  }
  std::vector<T> k(n);
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) k[i] = keys[rank[i]], v[i] = values[rank[i]];
  keys.swap(k);
  values.swap(v);
}

// gatherTopK: beyond the k-th value in index order, then equal ones from the lowest index.
template <typename T>
void select(const T* x, int64_t n, int64_t k, bool largest, std::vector<T>& keys, std::vector<int64_t>& picked) {
  std::vector<int64_t> ranked(static_cast<size_t>(n));
  std::iota(ranked.begin(), ranked.end(), int64_t{0});
  const auto before = [&](int64_t i, int64_t j) { return largest ? radix_less(x[j], x[i]) : radix_less(x[i], x[j]); };
  std::nth_element(ranked.begin(), ranked.begin() + (k - 1), ranked.end(), before);
  const T kth = x[ranked[static_cast<size_t>(k - 1)]];
  for (int64_t i = 0; i < n; ++i) {
    if (largest ? radix_less(kth, x[i]) : radix_less(x[i], kth)) keys.push_back(x[i]), picked.push_back(i);
  }
  for (int64_t i = 0; i < n && static_cast<int64_t>(picked.size()) < k; ++i) {
    if (!radix_less(kth, x[i]) && !radix_less(x[i], kth)) keys.push_back(x[i]), picked.push_back(i);
  }
}

int64_t wrapped(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args, const at::Tensor& x) {
  const auto* d = argument(schema, args, "dim");
  return at::maybe_wrap_dim(d ? d->toInt() : -1, std::max<int64_t>(x.dim(), 1));
}

bool flag(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args, const char* name, bool otherwise) {
  const auto* a = argument(schema, args, name);
  return a && !a->isNone() ? a->toBool() : otherwise;
}

// Each slice along `dim` moved last and contiguous; `fill` writes slice s's k results.
template <typename Fill>
std::pair<at::Tensor, at::Tensor> per_slice(const at::Tensor& x, int64_t dim, int64_t k, Fill fill) {
  const auto rows = x.movedim(dim, -1).contiguous();
  auto sizes = rows.sizes().vec();
  sizes.back() = k;
  auto values = at::empty(sizes, rows.options());
  auto indices = at::empty(sizes, rows.options().dtype(at::kLong));
  const int64_t n = rows.size(-1);
  const int64_t slices = n == 0 ? 0 : rows.numel() / n;
  if (slices > 0 && k > 0) {
    AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, rows.scalar_type(), "cuda_sort", [&] {
      const auto* in = rows.data_ptr<scalar_t>();
      auto* out = values.data_ptr<scalar_t>();
      auto* idx = indices.data_ptr<int64_t>();
      at::parallel_for(0, slices, 1, [&](int64_t begin, int64_t end) {
        for (int64_t s = begin; s < end; ++s) {
          std::vector<scalar_t> keys;
          std::vector<int64_t> picked;
          fill(in + s * n, n, keys, picked);
          std::copy(keys.begin(), keys.end(), out + s * k);
          std::copy(picked.begin(), picked.end(), idx + s * k);
        }
      });
    });
  }
  return {values.movedim(-1, dim), indices.movedim(-1, dim)};
}

std::pair<at::Tensor, at::Tensor> sort_slices(const at::Tensor& x, int64_t dim, bool descending, bool stable) {
  return per_slice(x, dim, x.size(dim), [&](const auto* row, int64_t n, auto& keys, auto& picked) {
    keys.assign(row, row + n);
    picked.resize(static_cast<size_t>(n));
    std::iota(picked.begin(), picked.end(), int64_t{0});
    sort_pairs(keys, picked, descending, stable);
  });
}

std::vector<at::Tensor> sort_call(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args) {
  const auto& x = args[0].toTensor();
  if (x.dim() == 0) return {x.clone(), at::zeros({}, x.options().dtype(at::kLong))};
  const auto dim = wrapped(schema, args, x);
  const bool descending = flag(schema, args, "descending", false), stable = flag(schema, args, "stable", false);
  auto [values, indices] = sort_slices(x, dim, descending, stable);
  return {values, indices};
}

std::vector<at::Tensor> topk_call(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                  const CpuKernel& cpu) {
  const auto& x = args[0].toTensor();
  if (x.dim() == 0) return cpu(args);
  const auto dim = wrapped(schema, args, x);
  const int64_t k = argument(schema, args, "k")->toInt();
  const bool largest = flag(schema, args, "largest", true), sorted = flag(schema, args, "sorted", true);
  const int64_t n = x.size(dim);
  if (k < 0 || k > n) return cpu(args);  // the CPU's kernel says why
  if (n >= kTopkSortLength && x.numel() / n <= kTopkSortSlices) {
    const auto indices = order(x, dim, largest, /*stable=*/false).narrow(dim, 0, k).contiguous();
    return {x.gather(dim, indices), indices};
  }
  auto [values, indices] = per_slice(x, dim, k, [&](const auto* row, int64_t len, auto& keys, auto& picked) {
    select(row, len, k, largest, keys, picked);
    if (sorted) sort_pairs(keys, picked, largest, /*stable=*/false);
  });
  return {values, indices};
}

bool is_topk(const c10::FunctionSchema& schema) { return schema.name() == "aten::topk"; }

}  // namespace

at::Tensor order(const at::Tensor& x, int64_t dim, bool descending, bool stable) {
  if (x.dim() == 0) return at::zeros({}, x.options().dtype(at::kLong));
  return sort_slices(x, at::maybe_wrap_dim(dim, x.dim()), descending, stable).second;
}

bool covers(const c10::FunctionSchema& schema, c10::ArrayRef<c10::IValue> args) {
  if (args.empty() || !args[0].isTensor()) return false;
  const auto& x = args[0].toTensor();
  switch (x.scalar_type()) {
    case at::kByte: case at::kChar: case at::kShort: case at::kInt: case at::kLong:
    case at::kHalf: case at::kBFloat16: case at::kFloat: case at::kDouble:
      return x.device().is_cpu();
    case at::kBool:  // CUDA's topk takes no bool; its sort does
      return x.device().is_cpu() && !is_topk(schema);
    default:
      return false;
  }
}

std::vector<at::Tensor> sort(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                             const CpuKernel& cpu) {
  if (!covers(schema, args)) return cpu(args);
  return is_topk(schema) ? topk_call(schema, args, cpu) : sort_call(schema, args);
}

const std::vector<std::string>& ops() {
  static const std::vector<std::string> names = {"aten::sort",        "aten::sort.stable", "aten::sort.values",
                                                 "aten::sort.values_stable", "aten::topk", "aten::topk.values"};
  return names;
}

}  // namespace devparity::vdev::cuda_sort
