// cuBLAS's float32 products of a small depth (Note [CUDA's SGEMM order] in
// vdev/cuda_sgemm.h). Built with -ffp-contract=off: the fused steps are the
// std::fma calls and no others.
#include "harness/vdev/cuda_sgemm.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>

namespace devparity::vdev::cuda_sgemm {

bool covers(const c10::FunctionSchema& /*schema*/, c10::ArrayRef<c10::IValue> args) {
  if (args.size() < 2 || !args[0].isTensor() || !args[1].isTensor()) return false;
  const auto& a = args[0].toTensor();
  const auto& b = args[1].toTensor();
  const bool shapes = (a.dim() == 2 && b.dim() == 2) || (a.dim() == 3 && b.dim() == 3 && a.size(0) == b.size(0));
  return shapes && a.scalar_type() == at::kFloat && b.scalar_type() == at::kFloat && a.size(-1) == b.size(-2) &&
         a.size(-1) >= 1 && a.size(-1) <= kMaxDepth && a.device().is_cpu() && b.device().is_cpu();
}

std::vector<at::Tensor> product(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                const CpuKernel& cpu) {
  if (!covers(schema, args)) return cpu(args);
  const auto a = args[0].toTensor().dim() == 2 ? args[0].toTensor().unsqueeze(0).contiguous()
                                               : args[0].toTensor().contiguous();
  const auto b = args[1].toTensor().dim() == 2 ? args[1].toTensor().unsqueeze(0).contiguous()
                                               : args[1].toTensor().contiguous();
  const int64_t batch = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  auto out = at::empty({batch, m, n}, a.options());
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* po = out.data_ptr<float>();
  at::parallel_for(0, batch * m, 256, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const float* ar = pa + row * k;
      const float* bm = pb + (row / m) * k * n;
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int64_t d = 0; d < k; ++d) acc = std::fma(ar[d], bm[d * n + j], acc);
        po[row * n + j] = acc;
      }
    }
  });
  return {args[0].toTensor().dim() == 2 ? out.squeeze(0) : out};
}

const std::vector<std::string>& ops() {
  static const std::vector<std::string> names = {"aten::mm", "aten::bmm", "aten::mm.out", "aten::bmm.out"};
  return names;
}

}  // namespace devparity::vdev::cuda_sgemm
