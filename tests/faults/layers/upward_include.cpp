// Seeded fault for the layering (cmake/devparity.cmake, dp_layer): a file of
// the base layer that includes the run layer above it. Compiled against the
// base layer's include view, it must fail with the runner's header missing.
#include "harness/base/rng.h"
#include "harness/run/runner.h"

int main() { return static_cast<int>(devparity::derive_seed(1, "x") & 1); }
