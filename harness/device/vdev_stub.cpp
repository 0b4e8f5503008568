// Compiled instead of vdev_backend.cpp when the virtual device is off
// (DEVPARITY_WITH_VDEV): every vdev:K is then absent, with that reason.
#include "harness/device/vdev.h"

namespace devparity::vdev {

bool compiled() { return false; }

void install(int) {}

int device_count() { return 0; }

c10::Device device(int index) {
  return c10::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index));
}

bool named_in_libtorch() { return false; }

std::string description() { return "devparity was built without the virtual device"; }

}  // namespace devparity::vdev
