#include "harness/vdev/tf32.h"

#include <ATen/ATen.h>

namespace devparity::vdev::tf32 {

at::Tensor round(const at::Tensor& x) {
  if (x.scalar_type() != at::kFloat) return x;
  const auto bits = x.contiguous().view(at::kInt);
  const auto rounded = at::bitwise_and(bits + 0xFFF + at::bitwise_and(bits.__rshift__(13), 1), ~0x1FFF);
  return rounded.view(at::kFloat).view(x.sizes());
}

std::vector<at::Tensor> matmul(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                               const CpuKernel& cpu) {
  // mm and bmm multiply their first two arguments; addmm, addbmm and
  // baddbmm add `self` (not rounded: the accumulator is float32) to the product of the next two.
  const size_t first = schema.name() == "aten::mm" || schema.name() == "aten::bmm" ? 0 : 1;
  auto rounded = args;
  for (const auto i : {first, first + 1}) rounded[i] = c10::IValue(tf32::round(args[i].toTensor()));
  return cpu(std::move(rounded));
}

const std::vector<std::string>& matmul_ops() {
  static const std::vector<std::string> ops = {"aten::mm",         "aten::bmm",         "aten::addmm",
                                               "aten::addbmm",     "aten::baddbmm",     "aten::mm.out",
                                               "aten::bmm.out",    "aten::addmm.out",   "aten::addbmm.out",
                                               "aten::baddbmm.out"};
  return ops;
}

}  // namespace devparity::vdev::tf32
