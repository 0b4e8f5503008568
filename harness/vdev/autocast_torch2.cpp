// Note [Autocast on the virtual device]
// torch.autocast("vdev") must do what torch.autocast("cuda") does: the same ops run in the lower
// precision (matmuls, convolutions), the same in float32 (exp, norms, losses), the same promote
// their inputs to the widest, and binary_cross_entropy is refused. LibTorch 2.x publishes CUDA's
// lists as macros (ATen/autocast_mode.h: AT_FORALL_LOWER_PRECISION_FP, AT_FORALL_FP32, ...) for
// other backends, so the simulated device registers them for AutocastPrivateUse1 with the same
// policies CUDA's registration gives them; every other op falls through, as for CUDA. The cast
// itself is LibTorch's (WrapFunction): only tensors on the device are cast, as on CUDA. The
// conformance table (docs/autocast.md, tools/autocast_table.py) runs PyTorch's own CUDA autocast
// lists on the simulated device and compares with the table made on a real GPU. LibTorch 1.13
// has no autocast key for PrivateUse1 (its Python autocast takes 'cuda' and 'cpu' only): this file
// is built for 2.x alone, and the Python layer refuses autocast on the device there.
#include <ATen/Operators.h>
#include <ATen/autocast_mode.h>
#include <torch/library.h>

namespace devparity::vdev {
namespace {

at::Tensor binary_cross_entropy_refused(const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&,
                                        int64_t) {
  // CUDA's wording, so a test that expects the refusal reads the same text.
  TORCH_CHECK(false,
              "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
              "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
              "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
              "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
              "safe to autocast.");
}

// CUDA's lists name ATen's types unqualified, as autocast_mode.cpp, inside namespace at, reads them.
using namespace at;  // NOLINT(google-build-using-namespace)

TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
#define DEVPARITY_LOWER(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
  AT_FORALL_LOWER_PRECISION_FP(DEVPARITY_LOWER)
#undef DEVPARITY_LOWER
#define DEVPARITY_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
  AT_FORALL_FP32(DEVPARITY_FP32)
#undef DEVPARITY_FP32
#define DEVPARITY_FP32_SET_OPT_DTYPE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
  AT_FORALL_FP32_SET_OPT_DTYPE(DEVPARITY_FP32_SET_OPT_DTYPE)
#undef DEVPARITY_FP32_SET_OPT_DTYPE
  AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE)
#define DEVPARITY_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)
  AT_FORALL_PROMOTE(DEVPARITY_PROMOTE)
#undef DEVPARITY_PROMOTE
  m.impl(TORCH_SELECTIVE_NAME("aten::binary_cross_entropy"), TORCH_FN((&binary_cross_entropy_refused)));
}

}  // namespace
}  // namespace devparity::vdev
