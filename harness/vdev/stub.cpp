// Compiled instead of the backend (vdev/install.cpp and its kernels) when the virtual device is off
// (DEVPARITY_WITH_VDEV): every vdev:K is then absent, with that reason.
#include "harness/vdev/vdev.h"
#include "harness/vdev/async.h"
#include "harness/vdev/autograd_threads.h"

#include <ATen/ATen.h>


namespace devparity::vdev {

bool compiled() { return false; }

void install(int) {}

int device_count() { return 0; }

bool installed() { return false; }

c10::Device device(int index) {
  return c10::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(index));
}

bool named_in_libtorch() { return false; }

std::string process_accelerator() { return ""; }

std::string description() { return "devparity was built without the virtual device"; }

}  // namespace devparity::vdev

namespace devparity::vdev::async {

// Asynchronous is the default mode of a device this build does not have.
void drain_all() {}
std::string Race::describe() const { return std::string(); }
Session::Session(uint64_t seed, Schedule) : seed_(seed) {}
Session::~Session() = default;
std::vector<Race> Session::finish() { return {}; }
uint8_t Session::poison() const { return 0; }
void host_reads(const at::Tensor&) {}
void synchronize_device(c10::DeviceIndex) {}
at::Tensor pinned_empty(at::IntArrayRef sizes, at::ScalarType dtype) {
  return at::empty(sizes, at::TensorOptions().dtype(dtype));
}
bool is_pinned(const void*) { return false; }
void set_site_provider(SiteProvider) {}
void set_pending_error_reset(PendingErrorReset) {}
Counters counters() { return {}; }

}  // namespace devparity::vdev::async

namespace devparity::vdev::autograd_threads {

void serve(int) {}
void renew_after_fork() {}
bool sizing_pool() { return false; }
int pool_size() { return 0; }
bool forks_refuse_autograd() { return false; }

}  // namespace devparity::vdev::autograd_threads
