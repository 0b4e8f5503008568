#include "harness/base/rounding.h"

#include <ATen/ATen.h>

namespace devparity {
namespace {

thread_local UnroundedCapture* t_capture = nullptr;

}  // namespace

std::string rounding_name(Rounding rounding) {
  switch (rounding) {
    case Rounding::kHalfEven: return "half to even";
    case Rounding::kHalfUp: return "half up";
    case Rounding::kTruncate: return "truncation";
  }
  return "?";
}

const at::Tensor& note_unrounded(const at::Tensor& rounded, const at::Tensor& values, Rounding rounding,
                                 const at::Tensor& error_bound) {
  if (UnroundedCapture* c = t_capture) {
    c->rounded_ = rounded;
    c->values_ = values;
    c->rounding_ = rounding;
    c->error_bound_ = error_bound;
  }
  return rounded;
}

bool unrounded_wanted() { return t_capture != nullptr; }

UnroundedCapture::UnroundedCapture() : previous_(t_capture) { t_capture = this; }

UnroundedCapture::~UnroundedCapture() { t_capture = previous_; }

Unrounded UnroundedCapture::of(const at::Tensor& output) const {
  Unrounded u;
  if (!rounded_.defined() || !output.defined() || output.is_meta() || rounded_.is_meta()) return u;
  // The same elements in the same order: the noted tensor itself, or a
  // reshape of it that did not copy.
  const bool same = output.is_same(rounded_) ||
                    (output.data_ptr() == rounded_.data_ptr() && output.numel() == rounded_.numel() &&
                     output.is_contiguous() && rounded_.is_contiguous());
  if (!same || values_.sizes() != rounded_.sizes()) return u;
  u.values = values_.detach().to(at::kCPU, at::kDouble).contiguous().reshape(output.sizes());
  u.rounding = rounding_;
  if (error_bound_.defined()) u.error_bound = error_bound_.to(at::kCPU, at::kDouble).item<double>();
  return u;
}

}  // namespace devparity
