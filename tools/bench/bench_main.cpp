// The benchmark runs with the host allocator tuned as devparity runs
// (Note [Host allocator]), so LibTorch and our code pay the same costs, and
// with the virtual device installed and its models of CUDA's arithmetic
// registered, as a run with vdev rows has them.

#include "harness/builtins.h"
#include "harness/device/host_memory.h"
#include "harness/vdev/vdev.h"

#include <benchmark/benchmark.h>

int main(int argc, char** argv) {
  devparity::retain_freed_host_memory();
  devparity::vdev::install(2);
  devparity::register_builtin_cuda_models();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
