#include "harness/core/error.h"

#include <c10/util/Exception.h>

#include <algorithm>
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
    case FailureKind::kException: return "exception";
  }
  return "exception";
}

}  // namespace devparity
