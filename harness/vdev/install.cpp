// The virtual device on PrivateUse1 (see ../shared/spec/pytorch-notes.md,
// section 4.4 and the probe of 4.5), for LibTorch 1.x and 2.x alike; what
// differs between them is in vdev/platform.h: installing it, its indices and
// current index, its allocator, and the dispatch keys around the backend's
// kernels (vdev/kernels.cpp) and fallback (vdev/fallback.cpp).
#include "harness/vdev/vdev.h"

#include "harness/vdev/alias.h"
#include "harness/vdev/async.h"
#include "harness/vdev/autograd_threads.h"
#include "harness/vdev/fallback.h"
#include "harness/vdev/guard.h"
#include "harness/vdev/platform.h"
#include "harness/vdev/runtime.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/library.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace devparity::vdev {
namespace {

std::atomic<int> g_count{0};
thread_local c10::DeviceIndex tls_current = 0;

// Note [Autograd on the virtual device]: CUDA's and the CPU's autograd keys
// fall through to the kernel for ops that have no autograd kernel of their
// own (torchvision::nms, a custom op with a CPU kernel alone); LibTorch 1.13
// has no such fallback for AutogradPrivateUse1, so those ops raised
// NotImplementedError on vdev outside inference_mode. Registered only where
// LibTorch has none (2.x has its own).
void register_autograd_fallthrough() {
  static std::unique_ptr<torch::Library> library;
  if (c10::Dispatcher::singleton().hasBackendFallbackForDispatchKey(c10::DispatchKey::AutogradPrivateUse1)) return;
  library = std::make_unique<torch::Library>(torch::Library::IMPL, "_", c10::DispatchKey::AutogradPrivateUse1,
                                             __FILE__, static_cast<uint32_t>(__LINE__));
  library->fallback(torch::CppFunction::makeFallthrough());
}

// Note [Math bits on the virtual device]: copy_ reaches a device other than
// the CPU and CUDA through _copy_from, which the conjugate and negative
// fallbacks do not let through: they resolve the bit with clone(), whose
// copy_ calls _copy_from again, without end (a conj view's resolve_conj()
// crashed). The CPU copy behind _copy_from resolves the bits itself, as
// copy_ does, so the copy kernels are let through where LibTorch has not.
void register_math_bit_fallthroughs() {
  static std::vector<std::unique_ptr<torch::Library>> libraries;
  for (const auto key : {c10::DispatchKey::Conjugate, c10::DispatchKey::Negative}) {
    auto library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", key, __FILE__,
                                                    static_cast<uint32_t>(__LINE__));
    for (const char* name : {"_copy_from", "_copy_from_and_resize"}) {
      const auto handle = aten_op(name);
      if (handle && !handle->hasKernelForDispatchKey(key)) {
        library->impl(name, torch::CppFunction::makeFallthrough());
      }
    }
    libraries.push_back(std::move(library));
  }
}

}  // namespace

void check_index(c10::DeviceIndex index) {
  TORCH_CHECK(index >= 0 && index < g_count.load(), "vdev:", static_cast<int>(index),
              " does not exist: devparity's virtual device has ", g_count.load(), " indices");
}

c10::DeviceIndex current_index() { return tls_current; }

void set_current_index(c10::DeviceIndex index) { tls_current = index; }

int installed_count() { return g_count.load(); }

c10::DeviceIndex platform::current_index() { return tls_current; }

// Every block is registered, so that asynchronous work can keep it past its
// free (Note [Stream-ordered release]).
void platform::free_memory(void* p) { runtime::release_block(p); }

c10::DataPtr platform::allocate_memory(size_t bytes) {
  autograd_threads::renew_after_fork();
  void* p = bytes != 0 ? c10::alloc_cpu(bytes) : nullptr;
  if (p != nullptr) {
    runtime::register_block(p, bytes, /*pinned=*/false, runtime::actor_of(runtime::current_stream(tls_current)));
  }
  return {p, p, &free_memory, c10::Device(kType, tls_current)};
}

bool compiled() { return true; }

void install(int count) {
  TORCH_CHECK(count >= 1 && count <= kMaxDevices, "the virtual device count must be in [1, ",
              kMaxDevices, "], got ", count);
  static std::once_flag once;
  std::call_once(once, [] {
    platform::register_backend();
    c10::SetAllocator(kType, platform::allocator());
    route_to_fallback();
    register_autograd_fallthrough();
    register_math_bit_fallthroughs();
  });
  g_count.store(count);
  autograd_threads::serve(count);
}

int device_count() { return g_count.load(); }

bool installed() { return g_count.load() > 0; }

c10::Device device(int index) {
  return c10::Device(kType, static_cast<c10::DeviceIndex>(index));
}

bool named_in_libtorch() { return platform::names_backend(); }

std::string process_accelerator() { return platform::accelerator_name(); }

std::string description() {
  return async::enabled()
             ? "devparity virtual device: CPU memory and CPU kernels on LibTorch's PrivateUse1 key, "
               "placement enforced like CUDA; asynchronous: streams run later in a seeded interleaving, "
               "with a race detector; timing and real kernel concurrency are not modelled"
             : "devparity virtual device: CPU memory and CPU kernels on LibTorch's PrivateUse1 key, "
               "placement enforced like CUDA; synchronous (--vdev-sync), so stream and event ordering "
               "bugs are not modelled (the default, asynchronous mode models them)";
}

}  // namespace devparity::vdev
