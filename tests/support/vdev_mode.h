#pragma once
// vdev's mode now with one part changed, for a test's vdev::ModeScope
// (Note [vdev's mode]).

#include "harness/vdev/mode.h"

namespace devparity::testing {

inline vdev::Mode mode_with_cuda_arithmetic(bool on) {
  auto m = vdev::mode();
  m.cuda_arithmetic = on;
  return m;
}

inline vdev::Mode mode_with_async(bool on) {
  auto m = vdev::mode();
  m.async = on;
  return m;
}

}  // namespace devparity::testing
