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
    c->direct_ = c->error_ = c->ambiguous_ = at::Tensor();
  }
  return rounded;
}

const at::Tensor& note_intermediate(const at::Tensor& rounded, const at::Tensor& direct, const at::Tensor& error) {
  if (UnroundedCapture* c = t_capture) {
    if (c->rounded_.defined() && c->rounded_.is_same(rounded)) {
      c->direct_ = direct;
      c->error_ = error;
    }
  }
  return rounded;
}

const at::Tensor& note_ambiguous(const at::Tensor& output, const at::Tensor& ambiguous) {
  if (UnroundedCapture* c = t_capture) {
    if (!c->rounded_.defined() || !c->rounded_.is_same(output)) {
      c->rounded_ = output;
      c->values_ = c->error_bound_ = c->direct_ = c->error_ = at::Tensor();
    }
    c->ambiguous_ = ambiguous;
  }
  return output;
}

double Unrounded::error_at(int64_t i) const {
  return error_bound + (error.defined() ? error.data_ptr<double>()[i] : 0.0);
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
  if (!same) return u;
  auto home = [&](const at::Tensor& t, at::ScalarType dtype) {
    return t.detach().to(at::kCPU, dtype).expand(rounded_.sizes()).contiguous().reshape(output.sizes());
  };
  if (ambiguous_.defined()) u.ambiguous = home(ambiguous_, at::kBool);
  if (!values_.defined() || values_.sizes() != rounded_.sizes()) return u;
  u.values = home(values_, at::kDouble);
  u.rounding = rounding_;
  if (error_bound_.defined()) u.error_bound = error_bound_.to(at::kCPU, at::kDouble).item<double>();
  if (direct_.defined() && direct_.sizes() == rounded_.sizes()) u.direct = home(direct_, at::kDouble);
  if (error_.defined() && error_.sizes() == rounded_.sizes()) u.error = home(error_, at::kDouble);
  return u;
}

}  // namespace devparity
