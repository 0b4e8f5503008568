// LibTorch 1.x: a const allocate(), no backend name (LibTorch prints
// "privateuseone:K"; devparity's own labels and error text say vdev:K) and
// no hooks interface to fill.
#include "harness/device/vdev_platform.h"

namespace devparity::vdev::platform {
namespace {

struct Allocator final : public c10::Allocator {
  c10::DataPtr allocate(size_t bytes) const override { return allocate_memory(bytes); }
  c10::DeleterFnPtr raw_deleter() const override { return &free_memory; }
};

Allocator g_allocator;

}  // namespace

c10::Allocator* allocator() { return &g_allocator; }

void register_backend() {}

bool names_backend() { return false; }

}  // namespace devparity::vdev::platform
