#pragma once
// Seeded host-side race for the ThreadSanitizer stress (tests/tsan): a
// decoder's library handle created lazily under a function-local once_flag,
// while another entry point tests and sets the same global handle itself
// (pytorch/vision#5713's shape: two paths to one global, one of them
// unsynchronised). The clean twin has one path: a function-local static,
// which C++ initialises once under a lock. Torch-free, so that TSan sees all
// of it.

namespace devparity::faults {

/// The handle's state, as a library's context would hold it.
struct CodecHandle {
  int created_by = 0;  ///< 1: the decode path, 2: the encode path
};

/// The two entry points' views of the handle (each thread calls both).
CodecHandle* decode_handle(bool faulty);
CodecHandle* encode_handle(bool faulty);

/// Forgets the faulty twin's handle between stress rounds (a fresh process,
/// as far as the handle knows).
void reset_faulty_handle();

}  // namespace devparity::faults
