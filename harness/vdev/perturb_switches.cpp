// vdev's own perturbed-numerics switches (Note [Perturbed numerics] in
// vdev/perturb.h): each a legal arithmetic a GPU library may use where the
// CPU's kernel uses another.
#include "harness/vdev/perturb.h"

#include "harness/vdev/cuda_upsample.h"
#include "harness/vdev/tf32.h"

#include <ATen/ATen.h>

#include <cmath>

namespace devparity::vdev::perturb {
namespace {

const c10::IValue& arg(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args, const char* name) {
  const auto* a = argument(schema, args, name);
  TORCH_CHECK(a != nullptr, "perturbed numerics: ", schema.name(), " has no argument ", name);
  return *a;
}

std::vector<c10::IValue> with(std::vector<c10::IValue> args, size_t i, at::Tensor t) {
  args[i] = c10::IValue(std::move(t));
  return args;
}

// ---- round_half_away ------------------------------------------------------

at::Tensor half_away(const at::Tensor& x) {
  const auto whole = at::trunc(x);
  return at::where(at::abs(x - whole) >= 0.5, whole + at::sign(x), whole);
}

std::vector<at::Tensor> round_half_away(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                        const CpuKernel& cpu) {
  const auto x = args[0].toTensor();
  if (!at::isFloatingType(x.scalar_type())) return cpu(args);
  const auto decimals = schema.argumentIndexWithName("decimals");
  const int64_t d = decimals ? args[static_cast<size_t>(*decimals)].toInt() : 0;
  if (d == 0) return {half_away(x)};
  // As the CPU's kernel scales: by 10^d above the point, by 10^-d below it.
  const double ten = std::pow(10.0, static_cast<double>(std::abs(d)));
  return {d > 0 ? half_away(x * ten) / ten : half_away(x / ten) * ten};
}

// ---- tf32 -----------------------------------------------------------------

std::vector<at::Tensor> tf32_inputs(const std::string&, std::vector<at::Tensor> inputs) {
  for (size_t i = 0; i < inputs.size() && i < 2; ++i) inputs[i] = tf32::round(inputs[i]);  // input and weight
  return inputs;
}

// ---- reduction_order ------------------------------------------------------

std::vector<at::Tensor> reversed_reduction(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                           const CpuKernel& cpu) {
  const auto x = args[0].toTensor();
  if (!at::isFloatingType(x.scalar_type()) || x.dim() == 0) return cpu(args);
  std::vector<int64_t> dims;
  if (const auto i = schema.argumentIndexWithName("dim"); i && !args[*i].isNone()) dims = args[*i].toIntVector();
  if (dims.empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) dims.push_back(d);
  }
  // The same elements summed in the reverse order along every reduced dim.
  return cpu(with(args, 0, x.flip(dims)));
}

// ---- tie_order ------------------------------------------------------------

int64_t wrapped_dim(int64_t dim, const at::Tensor& x) { return dim < 0 ? dim + std::max<int64_t>(x.dim(), 1) : dim; }

std::vector<at::Tensor> reversed_ties(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                      const CpuKernel& cpu) {
  const auto x = args[0].toTensor();
  if (const auto stable = schema.argumentIndexWithName("stable"); stable && !args[*stable].isNone() &&
                                                                     args[*stable].toBool()) {
    return cpu(args);  // a stable sort's order of ties is its contract
  }
  if (x.dim() == 0) return cpu(args);
  const auto dim = wrapped_dim(arg(schema, args, "dim").toInt(), x);
  const auto last = x.size(dim) - 1;
  const auto flipped = x.flip({dim});
  std::tuple<at::Tensor, at::Tensor> out;
  if (schema.name() == "aten::topk") {
    out = at::topk(flipped, arg(schema, args, "k").toInt(), dim, arg(schema, args, "largest").toBool(),
                   arg(schema, args, "sorted").toBool());
  } else {
    out = at::sort(flipped, /*stable=*/true, dim, arg(schema, args, "descending").toBool());
  }
  return {std::get<0>(out), last - std::get<1>(out)};
}

// ---- linspace_formula -----------------------------------------------------

// NumPy's linspace: start + i * step in float64, the last value `end`,
// rounded once to the output's dtype (LibTorch computes in the dtype, from
// both ends toward the middle; pytorch/pytorch#40904 was the two disagreeing).
std::vector<at::Tensor> numpy_linspace(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                                       const CpuKernel& cpu) {
  const auto theirs = cpu(args);
  const auto& r = theirs.at(0);
  if (!at::isFloatingType(r.scalar_type()) || r.numel() < 3) return theirs;
  const double start = arg(schema, args, "start").toScalar().toDouble();
  const double end = arg(schema, args, "end").toScalar().toDouble();
  const int64_t n = r.numel();
  auto values = at::arange(n, at::TensorOptions().dtype(at::kDouble)) * ((end - start) / static_cast<double>(n - 1)) +
                start;
  values.narrow(0, n - 1, 1).fill_(end);
  return {values.to(r.scalar_type())};
}

std::vector<std::string> tf32_ops() {
  auto ops = tf32::matmul_ops();
  ops.push_back("aten::convolution_overrideable");
  return ops;
}

}  // namespace

std::vector<Switch> builtin_switches() {
  std::vector<Switch> all;
  all.push_back({"round_half_away",
                 "round() rounds halves away from zero, as a kernel written with C's roundf does (CUDA's roundf "
                 "included), where LibTorch rounds them to even on every device; for code whose GPU path is its "
                 "own kernel; floating inputs only",
                 {"aten::round", "aten::round.decimals", "aten::round_", "aten::round_.decimals", "aten::round.out",
                  "aten::round.decimals_out"},
                 round_half_away,
                 nullptr});
  all.push_back({"tf32",
                 "matrix products (mm, bmm, addmm, addbmm, baddbmm) and convolutions read float32 inputs rounded to "
                 "TF32 (10 mantissa bits, to nearest even), as tensor cores do when allow_tf32 is on (cuDNN's "
                 "default for convolutions); accumulation stays float32. Convolution backward is not rounded",
                 tf32_ops(),
                 tf32::matmul,
                 tf32_inputs});
  all.push_back({"reduction_order",
                 "sum and mean add the same elements in the reverse order along every reduced dim, as a GPU's "
                 "reduction tree adds them in another order than the CPU's; floating inputs only",
                 {"aten::sum", "aten::sum.dim_IntList", "aten::sum.IntList_out", "aten::mean", "aten::mean.dim",
                  "aten::mean.out"},
                 reversed_reduction,
                 nullptr});
  all.push_back({"tie_order",
                 "sort (not stable=True) and topk give equal values in the other order, as the CUDA kernels may: "
                 "neither promises an order of ties",
                 {"aten::sort", "aten::sort.stable", "aten::sort.values", "aten::sort.values_stable", "aten::topk",
                  "aten::topk.values"},
                 reversed_ties,
                 nullptr});
  all.push_back({"linspace_formula",
                 "linspace computes NumPy's way (start + i * step in float64, rounded once) where LibTorch "
                 "computes in the output's dtype from both ends; floating outputs only",
                 {"aten::linspace", "aten::linspace.out"},
                 numpy_linspace,
                 nullptr});
  // The cuda_interpolate model's kernel, asked for by name: the same values
  // under --vdev-arithmetic cpu.
  all.push_back({"cuda_resample",
                 "bilinear and bicubic interpolate of float images (with or without antialias) computes source "
                 "indices and weights with nvcc's fused multiply-adds, as LibTorch's CUDA kernels do: the "
                 "cuda_interpolate model of CUDA's arithmetic (on by default), verified bit for bit on a real GPU "
                 "(docs/transforms.md); antialias with align_corners, and half precision with antialias, keep the "
                 "CPU's kernel",
                 cuda_upsample::ops(),
                 cuda_upsample::interpolate,
                 nullptr});
  return all;
}

}  // namespace devparity::vdev::perturb
