// torchvision's CUDA nms (Note [torchvision's CUDA nms] in vdev/cuda_nms.h).
// Built with -ffp-contract=off: the fused steps are the std::fma calls.
#include "harness/vdev/cuda_nms.h"

#include "harness/vdev/cuda_sort.h"

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>

#include <cmath>
#include <type_traits>

namespace devparity::vdev::cuda_nms {
namespace {

// max and min as CUDA's on values of T (exact).
template <typename T>
T larger(T a, T b) {
  return static_cast<float>(a) < static_cast<float>(b) ? b : a;
}
template <typename T>
T smaller(T a, T b) {
  return static_cast<float>(b) < static_cast<float>(a) ? b : a;
}
template <>
double larger(double a, double b) {
  return std::fmax(a, b);
}
template <>
double smaller(double a, double b) {
  return std::fmin(a, b);
}

// devIoU(a, b, threshold): T's own arithmetic where the source has it (c10::Half
// rounds each difference), the accumulate type for the areas.
template <typename T>
bool overlaps(const T* a, const T* b, float threshold) {
  using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const T left = larger(a[0], b[0]), right = smaller(a[2], b[2]);
  const T top = larger(a[1], b[1]), bottom = smaller(a[3], b[3]);
  const T width = larger(static_cast<T>(right - left), T(0)), height = larger(static_cast<T>(bottom - top), T(0));
  const acc_t w = static_cast<acc_t>(width), h = static_cast<acc_t>(height);
  const acc_t inter = w * h;
  const acc_t dxa = static_cast<acc_t>(a[2]) - static_cast<acc_t>(a[0]);
  const acc_t dya = static_cast<acc_t>(static_cast<T>(a[3] - a[1]));
  const acc_t dxb = static_cast<acc_t>(b[2]) - static_cast<acc_t>(b[0]);
  const acc_t dyb = static_cast<acc_t>(static_cast<T>(b[3] - b[1]));
  const acc_t area_b = dxb * dyb;
  const acc_t union_area = std::fma(-w, h, std::fma(dxa, dya, area_b));
  return inter / union_area > static_cast<acc_t>(threshold);
}

template <typename T>
std::vector<int64_t> kept(const at::Tensor& boxes, float threshold) {
  const int64_t n = boxes.size(0);
  const T* p = boxes.data_ptr<T>();
  std::vector<char> removed(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < n; ++i) {
    if (removed[static_cast<size_t>(i)]) continue;
    keep.push_back(i);
    for (int64_t j = i + 1; j < n; ++j) {
      if (overlaps(p + 4 * i, p + 4 * j, threshold)) removed[static_cast<size_t>(j)] = 1;
    }
  }
  return keep;
}

}  // namespace

bool covers(const c10::FunctionSchema& /*schema*/, c10::ArrayRef<c10::IValue> args) {
  if (args.size() < 3 || !args[0].isTensor() || !args[1].isTensor()) return false;
  const auto& dets = args[0].toTensor();
  const auto& scores = args[1].toTensor();
  const auto type = dets.scalar_type();
  return dets.device().is_cpu() && scores.device().is_cpu() && dets.dim() == 2 && dets.size(1) == 4 &&
         scores.dim() == 1 && scores.size(0) == dets.size(0) && scores.scalar_type() == type &&
         (type == at::kFloat || type == at::kDouble || type == at::kHalf);
}

std::vector<at::Tensor> nms(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                            const CpuKernel& cpu) {
  if (!covers(schema, args)) return cpu(args);
  const auto& dets = args[0].toTensor();
  if (dets.numel() == 0) return {at::empty({0}, dets.options().dtype(at::kLong))};
  const auto order = cuda_sort::order(args[1].toTensor(), 0, /*descending=*/true, /*stable=*/false);
  const auto boxes = dets.index_select(0, order).contiguous();
  // The kernel's parameter is a float.
  const auto threshold = static_cast<float>(args[2].toDouble());
  std::vector<int64_t> keep;
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(boxes.scalar_type(), "cuda_nms", [&] { keep = kept<scalar_t>(boxes, threshold); });
  const auto positions = at::tensor(keep, order.options());
  return {order.index_select(0, positions)};
}

const std::vector<std::string>& ops() {
  static const std::vector<std::string> names = {"torchvision::nms"};
  return names;
}

}  // namespace devparity::vdev::cuda_nms
