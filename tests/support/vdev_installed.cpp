// The test executables make virtual-device tensors directly, as a process that
// runs vdev rows does: nothing installs the device on load (Note [One
// accelerator per process]), so they install it before main().
#include "harness/vdev/vdev.h"

namespace {

const bool g_installed = [] {
  devparity::vdev::install(2);
  return true;
}();

}  // namespace
