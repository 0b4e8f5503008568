// Clean twin of upward_include.cpp: the same file including only its own
// layer's header compiles against the base layer's include view.
#include "harness/base/rng.h"

int main() { return static_cast<int>(devparity::derive_seed(1, "x") & 1); }
