#pragma once
/// The `cuda_resample` switch of vdev's perturbed numerics (Note [Perturbed
/// numerics] in vdev/perturb.h): LibTorch's float32 upsample ops computed
/// with CUDA's arithmetic (Note [CUDA's float resize]).

#include "harness/vdev/perturb.h"

namespace devparity::resample {

vdev::perturb::Switch cuda_resample_switch();

}  // namespace devparity::resample
