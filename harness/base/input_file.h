#pragma once
/// Reading an input file whole, within a bound: a case file, a report, an
/// image. A device or pipe that never ends (`/dev/zero`) or a huge file given
/// by mistake is refused with the path, not read until memory runs out.

#include <cstdint>
#include <string>

namespace devparity {

/// The most bytes an input may have: 1 GiB, or DEVPARITY_MAX_INPUT_MB MiB.
/// Throws UsageError naming the variable when it is set to anything but a
/// positive whole number.
uint64_t max_input_bytes();

/// The most a packed report may grow to when its shared values and skipped
/// groups are written out in full (Note [Packed report]): 1 GiB, or
/// DEVPARITY_MAX_UNPACKED_MB MiB; a bad value is refused as above.
uint64_t max_unpacked_bytes();

/// The variable that raises max_unpacked_bytes(), for messages.
const char* max_unpacked_variable();

/// The bytes of the file at `path`. Throws InputError naming the path when it
/// cannot be opened or read, is a directory, or holds more than
/// max_input_bytes() (a regular file by its size, anything else at the byte
/// past the bound).
std::string read_input_file(const std::string& path);

}  // namespace devparity
