// The op library behind the Python package (docs/python.md): devparity's
// functions as TORCH_LIBRARY ops, loaded with torch.ops.load_library. No
// CPython extension and no libtorch_python link: the same artifact works for
// any Python that runs the torch it was built against. This file: the
// simulated device; trace.cpp and audit.cpp add their fragments.
#include "harness/device/device.h"
#include "harness/vdev/vdev.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <string>

namespace {

void install(int64_t count) { devparity::vdev::install(static_cast<int>(count)); }

int64_t device_count() { return devparity::vdev::device_count(); }

bool named_in_libtorch() { return devparity::vdev::named_in_libtorch(); }

const c10::impl::DeviceGuardImplInterface& guard() {
  return *c10::impl::getDeviceGuardImpl(c10::DeviceType::PrivateUse1);
}

// The calling thread's current index, as the device guard keeps it.
int64_t current_device() { return guard().getDevice().index(); }

void set_device(int64_t index) {
  TORCH_CHECK(index >= 0 && index < devparity::vdev::device_count(), "set_device: index ", index,
              " outside the ", devparity::vdev::device_count(), " simulated device(s)");
  guard().setDevice(c10::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index)));
}

// The index made current while code runs on simulated device `index`: the
// runner's rule (Note [Current device]), for the pytest plugin's rows.
int64_t other_current_index(int64_t index) {
  const c10::Device device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index));
  const auto other = devparity::other_current_device(device);
  return other ? other->index() : index;
}

}  // namespace

TORCH_LIBRARY(devparity, m) {
  m.def("install(int count) -> ()", &install);
  m.def("device_count() -> int", &device_count);
  m.def("named_in_libtorch() -> bool", &named_in_libtorch);
  m.def("current_device() -> int", &current_device);
  m.def("set_device(int index) -> ()", &set_device);
  m.def("other_current_index(int index) -> int", &other_current_index);
}
