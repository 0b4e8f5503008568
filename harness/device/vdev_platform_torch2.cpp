// LibTorch 2.x: allocate() is non-const and copy_data() pure virtual; the
// backend is named "vdev" so LibTorch parses and prints vdev:K itself; and
// the hooks interface answers what 2.x asks an accelerator (autograd's
// primary-context question, pinned memory, storage resizes).
#include "harness/device/vdev_platform.h"

#include <ATen/core/Generator.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/native/Resize.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/DeviceType.h>

#include <cstddef>


namespace devparity::vdev::platform {
namespace {

constexpr auto kType = c10::DeviceType::PrivateUse1;

struct Allocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t bytes) override { return allocate_memory(bytes); }
  c10::DeleterFnPtr raw_deleter() const override { return &free_memory; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
};

Allocator g_allocator;

// Host memory is already what pinning would give; random draws on the
// device use the CPU generator, as the device's kernels are the CPU's.
struct Hooks final : public at::PrivateUse1HooksInterface {
  const at::Generator& getDefaultGenerator(c10::DeviceIndex) const override {
    return at::detail::getDefaultCPUGenerator();
  }
  at::Device getDeviceFromPtr(void*) const override { return c10::Device(kType, current_index()); }
  bool isPinnedPtr(const void*) const override { return false; }
  c10::Allocator* getPinnedMemoryAllocator() const override { return c10::GetCPUAllocator(); }
  bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t bytes) const override {
    at::native::resize_bytes_cpu(storage.unsafeGetStorageImpl(), bytes);
  }
};

}  // namespace

bool names_backend() { return true; }

c10::Allocator* allocator() { return &g_allocator; }

void register_backend() {
  c10::register_privateuse1_backend("vdev");
  static Hooks hooks;
  at::RegisterPrivateUse1HooksInterface(&hooks);
}

}  // namespace devparity::vdev::platform
