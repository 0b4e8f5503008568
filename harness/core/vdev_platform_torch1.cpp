// LibTorch 1.x: a const allocate(), no backend name (LibTorch prints
// "privateuseone:K"; devparity's own labels and error text say vdev:K) and
// no hooks interface to fill.
#include "harness/core/vdev_platform.h"

#include <c10/core/impl/alloc_cpu.h>

namespace devparity::vdev::platform {
namespace {

void free_block(void* p) { c10::free_cpu(p); }

struct Allocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t bytes) const override {
    void* p = bytes != 0 ? c10::alloc_cpu(bytes) : nullptr;
    return {p, p, &free_block, c10::Device(c10::DeviceType::PrivateUse1, current_index())};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_block; }
};

Allocator g_allocator;

}  // namespace

c10::Allocator* allocator() { return &g_allocator; }

void register_backend() {}

bool names_backend() { return false; }

}  // namespace devparity::vdev::platform
