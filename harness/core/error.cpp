#include "harness/core/error.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <new>
#include <regex>

namespace devparity {
namespace {

std::string strip_backtrace(std::string text) {
  const auto pos = text.find("\nException raised from");
  if (pos != std::string::npos) text.erase(pos);
  // LibTorch names the virtual device by its dispatch key; say vdev.
  for (auto at = text.find("privateuseone"); at != std::string::npos;
       at = text.find("privateuseone", at)) {
    text.replace(at, 13, "vdev");
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  // TorchScript's ErrorReport starts with a newline.
  const auto start = text.find_first_not_of("\n ");
  return start == std::string::npos ? std::string() : text.substr(start);
}

std::string first_line(const std::string& text) {
  const auto pos = text.find('\n');
  return pos == std::string::npos ? text : text.substr(0, pos);
}

// Note [Device error wordings]
// LibTorch reports tensors on different devices in several ways; each one is a
// placement failure, so each maps to kDeviceMismatch. The TorchScript
// interpreter wraps them in a traceback, so search the whole text.
const char* const kDeviceMismatchPatterns[] = {
    "Expected all tensors to be on the same device",
    "indices should be either on cpu or on the same device",
    "Cannot copy out of meta tensor",
    "Expected tensor for argument",
    "to be on the same device",
    "Unhandled FakeTensor Device Propagation",
    // A hard-coded "cuda" met a machine (or build) without it.
    "Cannot initialize CUDA without ATen_cuda library",
    "Torch not compiled with CUDA enabled",
    "Found no NVIDIA driver on your system",
};

// Note [TorchScript tracebacks]
// The interpreter's message starts with "The following operation failed in
// the TorchScript interpreter.", then a traceback (most recent call last) of
// `File "...", line N` entries (the original Python source when the archive
// kept its debug information, else the serialized code), and ends with the
// original error. The first line says nothing; the last error line does.
constexpr const char* kInterpreterPreamble = "The following operation failed in the TorchScript interpreter.";

std::string interpreter_error_line(const std::string& text) {
  std::string last;
  size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    const auto line = text.substr(start, end - start);
    const auto colon = line.find("Error: ");
    if (colon != std::string::npos && line.find(' ') > colon) last = line.substr(colon + 7);
    start = end + 1;
  }
  return last;
}

std::string traceback_source(const std::string& text) {
  static const std::regex entry(R"re(File "([^"]+)", line ([0-9]+))re");
  std::string out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), entry); it != std::sregex_iterator(); ++it) {
    out = (*it).str(1) + ":" + (*it).str(2);
  }
  return out;
}

}  // namespace

std::string torch_message(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    return strip_backtrace(c10_error->what_without_backtrace());
  }
  return strip_backtrace(e.what());
}

// LibTorch's missing-kernel message runs to a paragraph listing every
// backend; keep its first sentence.
std::string trim_boilerplate(std::string line) {
  for (const char* tail : {". This could be because the operator doesn't exist",
                           ". You are likely triggering this with tensor backend"}) {
    const auto pos = line.find(tail);
    if (pos != std::string::npos) line.erase(pos);
  }
  return line;
}

ClassifiedError classify_message(const std::string& text) {
  ClassifiedError out;
  out.message = trim_boilerplate(first_line(text));
  if (text.rfind(kInterpreterPreamble, 0) == 0) {
    const auto line = interpreter_error_line(text);
    if (!line.empty()) out.message = trim_boilerplate(line);
    out.source = traceback_source(text);
    if (!out.source.empty()) out.message += " (TorchScript, " + out.source + ")";
  }
  static const std::regex op_name(R"((aten|prim|torchvision|devparity)::[A-Za-z0-9_.]+)");
  std::smatch match;
  if (std::regex_search(text, match, op_name)) out.op = match.str();

  for (const char* pattern : kDeviceMismatchPatterns) {
    if (text.find(pattern) != std::string::npos) {
      out.kind = FailureKind::kDeviceMismatch;
      return out;
    }
  }
  // `.item()` on meta fails for want of a kernel, but it is a placement bug:
  // the subject synchronised with the host.
  if (text.find("_local_scalar_dense") != std::string::npos &&
      text.find("'Meta'") != std::string::npos) {
    out.kind = FailureKind::kDeviceMismatch;
    return out;
  }
  // Note [Out of memory]: LibTorch says "DefaultCPUAllocator: can't allocate
  // memory: you tried to allocate N bytes" and "CUDA out of memory. Tried to
  // allocate 20.00 GiB"; either way the trial is an error, not a verdict on
  // the subject, and the run goes on.
  static const std::regex cpu_oom(R"(can't allocate memory: you tried to allocate ([0-9]+) bytes)");
  static const std::regex cuda_oom(R"(out of memory\. Tried to allocate ([0-9.]+) ([KMGT]i?B))");
  if (std::regex_search(text, match, cpu_oom)) {
    out.kind = FailureKind::kOutOfMemory;
    out.requested_bytes = std::stoll(match.str(1));
    return out;
  }
  if (std::regex_search(text, match, cuda_oom)) {
    out.kind = FailureKind::kOutOfMemory;
    const double value = std::stod(match.str(1));
    const char unit = match.str(2)[0];
    const double scale = unit == 'K' ? 1024.0 : unit == 'M' ? 1048576.0 : unit == 'G' ? 1073741824.0 : 1099511627776.0;
    out.requested_bytes = static_cast<int64_t>(value * scale);
    return out;
  }
  if (text.find("out of memory") != std::string::npos) {
    out.kind = FailureKind::kOutOfMemory;
    return out;
  }
  for (const char* pattern : {"CUDA error:", "device-side assert triggered", "an illegal memory access",
                              "cudaErrorLaunchFailure", "CUBLAS_STATUS_EXECUTION_FAILED"}) {
    if (text.find(pattern) != std::string::npos) {
      out.kind = FailureKind::kDeviceError;
      return out;
    }
  }
  if (text.find("Could not run '") != std::string::npos ||
      text.find("not implemented for '") != std::string::npos ||
      text.find("_overrideable not implemented") != std::string::npos ||
      text.find("is not implemented for") != std::string::npos) {
    out.kind = FailureKind::kUnsupported;
    if (out.op.empty() && text.find("convolution_overrideable") != std::string::npos) {
      out.op = "aten::convolution_overrideable";
    }
  }
  return out;
}

ClassifiedError classify_exception(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) {
    ClassifiedError out;
    out.kind = FailureKind::kOutOfMemory;
    out.message = std::string("out of host memory (std::bad_alloc: ") + e.what() + ")";
    return out;
  }
  if (dynamic_cast<const Unsupported*>(&e) != nullptr) {
    ClassifiedError out;
    out.kind = FailureKind::kUnsupported;
    out.message = e.what();
    return out;
  }
  auto out = classify_message(torch_message(e));
  if (dynamic_cast<const c10::NotImplementedError*>(&e) != nullptr &&
      out.kind == FailureKind::kException) {
    out.kind = FailureKind::kUnsupported;
  }
  return out;
}

const char* failure_kind_name(FailureKind kind) {
  switch (kind) {
    case FailureKind::kUnsupported: return "unsupported";
    case FailureKind::kDeviceMismatch: return "device_mismatch";
    case FailureKind::kOutOfMemory: return "out_of_memory";
    case FailureKind::kDeviceError: return "device_error";
    case FailureKind::kException: return "exception";
  }
  return "exception";
}

}  // namespace devparity
