#pragma once
/// StatefulImageTransform: the apply() prologue that stateful image
/// transforms share, written once. apply() opens a trace scope named after
/// the transform (so findings read "planckian_jitter > ..."), checks that the
/// input is NCHW, and by default returns a copy of an empty batch (pipelines
/// meet N = 0, and code that picks per-sample rows has nothing to pick);
/// only then it calls run().

#include "harness/subject/describe.h"
#include "harness/subject/state.h"

#include <utility>

namespace devparity {

class StatefulImageTransform : public Described<StatefulTransform> {
 public:
  /// What apply() does with an empty batch (N = 0).
  enum class EmptyBatch {
    kCopy,  ///< returns a copy without calling run()
    kRun,   ///< calls run(): its ops run on N = 0 as on any batch
  };

  explicit StatefulImageTransform(TransformInfo info, EmptyBatch empty = EmptyBatch::kCopy)
      : Described(std::move(info)), empty_(empty) {}

  using StatefulTransform::apply;
  at::Tensor apply(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const final;

 protected:
  /// The transform on a non-empty NCHW batch, with `state` on x's device.
  virtual at::Tensor run(const at::Tensor& x, const nlohmann::json& params, TransformState& state) const = 0;

 private:
  EmptyBatch empty_;
};

}  // namespace devparity
