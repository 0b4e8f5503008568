#pragma once
/// Note [vdev's mode]
/// How the virtual device computes and orders its work is one value: whether
/// its streams run later (asynchronous), when pinned memory is released,
/// whether it computes CUDA's arithmetic where it has a model of it, and the
/// perturbation switches each run of a subject turns on. A ModeScope sets it
/// for a span of code (a session, a Python block, a test) and puts back the
/// one before when it ends, so no caller saves and restores its parts, and a
/// session's verdicts follow its own settings whatever ran before it. The
/// mode is process-wide, as the device is; every vdev op reads it, through
/// lock-free copies of its flags.

#include "harness/vdev/async.h"

#include <string>
#include <vector>

namespace devparity::vdev {

struct Mode {
  /// Streams run later, in an interleaving drawn from each run's seed
  /// (Note [Asynchronous virtual device]); without the virtual device in
  /// this build, never.
  bool async = false;
  /// When pinned host memory is released (Note [Eager pinned release]).
  async::PinnedRelease pinned_release = async::PinnedRelease::kPooled;
  /// CUDA's arithmetic where a model of it is registered (Note [CUDA's
  /// arithmetic on vdev]); the CPU's kernels alone when false.
  bool cuda_arithmetic = true;
  /// The perturbation switches every run of a subject on vdev turns on
  /// (Note [Perturbed numerics]); empty: none.
  std::vector<std::string> perturb;
};

/// The mode now.
Mode mode();

/// Sets the mode until destroyed, then puts back the mode it found. Scopes
/// end in the reverse order of their start. Leaving asynchronous mode runs
/// every stream's queued work first.
class ModeScope {
 public:
  explicit ModeScope(Mode mode);
  ~ModeScope();
  ModeScope(const ModeScope&) = delete;
  ModeScope& operator=(const ModeScope&) = delete;

 private:
  Mode was_;
};

}  // namespace devparity::vdev
