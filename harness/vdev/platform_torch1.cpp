// LibTorch 1.x: a const allocate(), no backend name (LibTorch prints
// "privateuseone:K"; devparity's own labels and error text say vdev:K) and
// no hooks interface to fill: installing registers the device guard alone.
#include "harness/vdev/platform.h"

#include "harness/vdev/guard.h"
#include "harness/vdev/runtime.h"

namespace devparity::vdev::platform {
namespace {

struct Allocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t bytes) const override { return allocate_memory(bytes); }
  c10::DeleterFnPtr raw_deleter() const override { return &free_memory; }
};

Allocator g_allocator;
struct PinnedAllocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t bytes) const override { return runtime::allocate_pinned(bytes); }
  c10::DeleterFnPtr raw_deleter() const override { return &runtime::free_pinned; }
};

PinnedAllocator g_pinned_allocator;

// 1.13's interface has no new streams, event or device synchronize.
struct GuardImpl final : public GuardBase {};


}  // namespace

c10::Allocator* allocator() { return &g_allocator; }

c10::Allocator* pinned_allocator() { return &g_pinned_allocator; }

void register_backend() {
  static GuardImpl guard;
  static c10::impl::DeviceGuardImplRegistrar registrar(c10::DeviceType::PrivateUse1, &guard);
}

bool names_backend() { return false; }

std::string accelerator_name() { return ""; }

}  // namespace devparity::vdev::platform
