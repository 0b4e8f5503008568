#include "tests/faults/host_race_faults.h"

#include <mutex>

namespace devparity::faults {
namespace {

CodecHandle* g_handle = nullptr;  // the faulty twin's global
std::once_flag* g_once = new std::once_flag;

CodecHandle* clean_handle() {
  static CodecHandle* handle = new CodecHandle{1};  // one path, initialised once
  return handle;
}

}  // namespace

CodecHandle* decode_handle(bool faulty) {
  if (!faulty) return clean_handle();
  // The once_flag guards this path only.
  std::call_once(*g_once, [] {
    if (g_handle == nullptr) g_handle = new CodecHandle{1};
  });
  return g_handle;
}

CodecHandle* encode_handle(bool faulty) {
  if (!faulty) return clean_handle();
  if (g_handle == nullptr) g_handle = new CodecHandle{2};  // FAULT: tests and sets the global outside the once
  return g_handle;
}

void reset_faulty_handle() {
  g_handle = nullptr;  // leaked on purpose: a stale pointer may still be held by a finished round
  g_once = new std::once_flag;
}

}  // namespace devparity::faults
