#include "harness/device/host_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace devparity {

void retain_freed_host_memory() {
#if defined(__GLIBC__)
  constexpr int kOneGiB = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kOneGiB);
  mallopt(M_TRIM_THRESHOLD, kOneGiB);
#endif
}

}  // namespace devparity
