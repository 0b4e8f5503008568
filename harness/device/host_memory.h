#pragma once
/// Process-wide tuning of the host allocator, for executables (not libraries).

namespace devparity {

/// Note [Host allocator]
/// LibTorch's CPU allocator is plain malloc. glibc serves blocks above its
/// mmap threshold (at most 32 MiB) with fresh mappings and unmaps them on
/// free, so every image-sized temporary page-faults again on first touch:
/// float64 work on a 1080p image ran 3-4x slower than its arithmetic. This
/// raises the mmap and trim thresholds so freed blocks are reused instead.
/// Call once at the start of main(); harmless elsewhere (no-op off glibc).
void retain_freed_host_memory();

}  // namespace devparity
