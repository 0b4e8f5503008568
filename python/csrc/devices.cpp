// The op library behind the Python package (docs/python.md): devparity's
// functions as TORCH_LIBRARY ops, loaded with torch.ops.load_library. No
// CPython extension and no libtorch_python link: the same artifact works for
// any Python that runs the torch it was built against. This file: the
// simulated device; trace.cpp and audit.cpp add their fragments.
#include "harness/builtins.h"
#include "harness/device/device.h"
#include "harness/vdev/autograd_threads.h"
#include "harness/vdev/vdev.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <optional>
#include <string>

namespace {

// vdev's models of CUDA's arithmetic first: they run on its rows from the first op.
void install(int64_t count) {
  devparity::register_builtin_cuda_models();
  devparity::vdev::install(static_cast<int>(count));
}

int64_t device_count() { return devparity::vdev::device_count(); }

// The autograd engine's device threads, one per index (Note [Autograd device threads]).
int64_t autograd_pool_size() { return devparity::vdev::autograd_threads::pool_size(); }

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

// Makes current the index the runner's rule (Note [Current device]) picks
// while code runs on simulated device `index`, for the pytest plugin's rows;
// returns the index that was current (one call: every phase of every test).
int64_t make_other_current(int64_t index) {
  const c10::Device device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index));
  const auto other = devparity::other_current_device(device);
  const int64_t previous = current_device();
  set_device(other ? other->index() : index);
  return previous;
}

// Why `name` is not a device of this process ("" when it is): its type has no
// device guard here (a CPU build's cuda, mps off a Mac, vdev before install())
// or fewer indices. Asks the guard alone, so nothing of the device starts.
std::string device_absent(const std::string& name) {
  std::optional<c10::Device> device;
  try {
    device.emplace(name);
  } catch (const std::exception&) {
    return name + " is not a device LibTorch knows";
  }
  if (device->is_cpu() || device->is_meta()) return "";
  if (!c10::impl::hasDeviceGuardImpl(device->type())) {
    return name + " is not available in this process (this LibTorch has no " + c10::DeviceTypeName(device->type(), true) +
           " support, or the device is not installed)";
  }
  const int count = c10::impl::getDeviceGuardImpl(device->type())->deviceCount();
  if (count == 0) return name + " is not available in this process (no such device on this machine)";
  if (device->has_index() && device->index() >= count) {
    return name + " is not available in this process (this machine has " + std::to_string(count) + ")";
  }
  return "";
}

}  // namespace

TORCH_LIBRARY(devparity, m) {
  m.def("install(int count) -> ()", &install);
  m.def("device_count() -> int", &device_count);
  m.def("autograd_pool_size() -> int", &autograd_pool_size);
  m.def("forks_refuse_autograd() -> bool", &devparity::vdev::autograd_threads::forks_refuse_autograd);
  m.def("named_in_libtorch() -> bool", &named_in_libtorch);
  m.def("current_device() -> int", &current_device);
  m.def("set_device(int index) -> ()", &set_device);
  m.def("make_other_current(int index) -> int", &make_other_current);
  m.def("device_absent(str device) -> str", &device_absent);
}
