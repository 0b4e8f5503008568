#include "harness/transforms/kernels/fused_multiply_add.h"

#include <ATen/ATen.h>


namespace devparity::resample {

at::Tensor fused_multiply_add(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c) {
  const auto p = a.to(at::kDouble) * b.to(at::kDouble);  // exact
  const auto cd = c.to(at::kDouble);
  const auto s = p + cd;
  // TwoSum: s + e == p + c exactly.
  const auto pv = s - cd;
  const auto e = (p - pv) + (cd - (s - pv));
  // s is halfway between two floats when the float it rounds to and its
  // mirror image through s are both floats (the mirror is exact then).
  const auto r = s.to(at::kFloat).to(at::kDouble);
  const auto mirror = s * 2.0 - r;
  const auto halfway = (r.ne(s) & mirror.to(at::kFloat).to(at::kDouble).eq(mirror) & e.ne(0.0)).to(at::kDouble);
  // There one step of s toward e's side: toward 2s or 0 (s is not 0 there).
  // Elsewhere the target is s itself and nextafter leaves s as it is. (No
  // where(): LibTorch 1.13 has no meta kernel for it.)
  const auto sign = [](const at::Tensor& v) { return v.gt(0.0).to(at::kDouble) - v.lt(0.0).to(at::kDouble); };
  const auto target = s * (halfway * sign(e) * sign(s) + 1.0);
  return at::nextafter(s, target).to(at::kFloat);
}

}  // namespace devparity::resample
