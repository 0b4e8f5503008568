#pragma once
/// Note [Replayed draws]
/// Random transforms written for eager use draw their parameters inside
/// forward from the process's generators (torchvision's RandomRotation calls
/// torch.empty(1).uniform_() on the host). Each device's run of a trial
/// starts those generators from the same seed, so host draws are identical
/// on every device and parity compares like with like. Draws made on the
/// device itself come from the device's generator and legitimately differ
/// between device types: the tracer reports them (Tracer::device_draws) and
/// parity calls such trials not comparable.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>

namespace devparity {

/// While alive: the CPU's default generator (and `device`'s, for CUDA)
/// starts from `seed`; the CPU generator's previous state comes back after.
class ReplayedDraws {
 public:
  ReplayedDraws(uint64_t seed, const c10::Device& device);
  ~ReplayedDraws();
  ReplayedDraws(const ReplayedDraws&) = delete;
  ReplayedDraws& operator=(const ReplayedDraws&) = delete;

 private:
  at::Tensor saved_;
};

}  // namespace devparity
