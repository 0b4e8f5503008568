#pragma once
// Where the Python code is while an op runs: the innermost frame of user
// code (not torch's, not devparity's own), for findings' `source`.
//
// Note [Python frames without libpython]
// The op library is not a CPython extension (docs/python.md): it finds the
// interpreter's C API in the process with dlsym, and only when a finding
// needs a source. Ops dispatched from Python run with the GIL released, so
// the locator takes it (PyGILState_Ensure, reentrant) on threads that have a
// Python thread state and names nothing on others (autograd's workers).

#include <optional>
#include <string>
#include <vector>

namespace devparity::python {

/// Installs the Python locator in front of the one installed now (which it
/// asks when no Python frame is found); frames whose file starts with one of
/// `skip` (torch's and devparity's package folders) are not user code.
void locate_python_sources(std::vector<std::string> skip);

/// The Python exception pending on this thread as "Type: message", cleared;
/// nothing when none is (Note [Python frames without libpython]).
std::optional<std::string> take_python_error();

}  // namespace devparity::python
