#include "harness/base/error.h"

#include "harness/base/text.h"

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
// LibTorch says "these tensors are on different devices" in several ways, and
// "this backend has no kernel for that" in one (the dispatcher's "Could not
// run"). The first are placement failures (kDeviceMismatch); the second is a
// capability (kUnsupported: on meta a skip, as meta lacks many kernels), as is
// meta's refusal to hand over data it does not have. Each wording is a row,
// matched against the error itself (for TorchScript, the interpreter's last
// error line, not the traceback that wraps it).
struct Wording {
  const char* name;
  const char* pattern;  // a regular expression (ECMAScript)
  FailureKind kind;
};

const Wording kWordings[] = {
    // The device checks (../shared/spec/cuda-device-rules.md).
    {"same_device", "Expected all tensors to be on the same device", FailureKind::kDeviceMismatch},
    {"indices_device", "indices should be either on cpu or on the same device as the indexed tensor",
     FailureKind::kDeviceMismatch},
    {"mask_device", "expected self and mask to be on the same device", FailureKind::kDeviceMismatch},
    {"storage_device", "Attempted to set the storage of a tensor on device", FailureKind::kDeviceMismatch},
    {"gradient_device", "invalid gradient at index [0-9]+ - expected device", FailureKind::kDeviceMismatch},
    {"value_device", "expected device \\S+ but got device \\S+ for value tensor", FailureKind::kDeviceMismatch},
    {"cpu_scalars", "Trying to pass too many CPU scalars to non-CPU kernel", FailureKind::kDeviceMismatch},
    {"argument_device", "Expected tensor for argument #[0-9]+ .* to have the same device",
     FailureKind::kDeviceMismatch},
    {"kernel_same_device", "(to be|are|be) on (the )?same device", FailureKind::kDeviceMismatch},
    {"expected_device", "Tensor on device \\S+ is not on the expected device", FailureKind::kDeviceMismatch},
    {"generator_device", "Expected a '[^']+' device type for generator but found '[^']+'",
     FailureKind::kDeviceMismatch},
    {"fake_tensor", "Unhandled FakeTensor Device Propagation", FailureKind::kDeviceMismatch},
    // A hard-coded "cuda" met a machine (or build) without it.
    {"no_cuda", "Cannot initialize CUDA without ATen_cuda library|Torch not compiled with CUDA enabled|"
                "Found no NVIDIA driver on your system",
     FailureKind::kDeviceMismatch},
    // What a backend cannot do.
    {"missing_kernel", "Could not run '[^']+' with arguments from the '[^']+' backend", FailureKind::kUnsupported},
    {"meta_has_no_data", "Cannot copy out of meta tensor", FailureKind::kUnsupported},
    // "... not implemented for 'Half'", and grid sampling's unquoted "... not implemented for Half".
    {"dtype_kernel", "not implemented for '[^']+'|not implemented for "
                     "(Half|BFloat16|Float|Double|Byte|Char|Short|Int|Long|Bool|ComplexFloat|ComplexDouble)\\b", FailureKind::kUnsupported},
    {"overrideable_kernel", "_overrideable not implemented", FailureKind::kUnsupported},
    {"not_implemented", "is not implemented for", FailureKind::kUnsupported},
};

// "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)
// should be the same": convolution's type check, which is a device mismatch
// when the backends differ and a dtype mismatch otherwise.
bool parameter_device_mismatch(const std::string& text) {
  static const std::regex types(R"(Input type \(([^)]+)\) and weight type \(([^)]+)\) should be the same)");
  std::smatch m;
  if (!std::regex_search(text, m, types)) return false;
  static const std::regex scalar(R"((Byte|Char|Short|Int|Long|Half|Float|Double|Bool|BFloat16|ComplexFloat|ComplexDouble)(Tensor|Type)$)");
  return std::regex_replace(m.str(1), scalar, "") != std::regex_replace(m.str(2), scalar, "");
}

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

// The innermost frame outside PyTorch's own files, as the tracer's sources
// (a failure inside torch.nn.functional names the subject's call).
std::string traceback_source(const std::string& text) {
  static const std::regex entry(R"re(File "([^"]+)", line ([0-9]+))re");
  std::string innermost, user;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), entry); it != std::sregex_iterator(); ++it) {
    innermost = (*it).str(1) + ":" + (*it).str(2);
    if (!inside_torch((*it).str(1))) user = innermost;
  }
  return user.empty() ? innermost : user;
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
  std::string error = text;
  if (text.rfind(kInterpreterPreamble, 0) == 0) {
    const auto line = interpreter_error_line(text);
    if (!line.empty()) {
      out.message = trim_boilerplate(line);
      error = line;
    }
    out.source = traceback_source(text);
    if (!out.source.empty()) out.message += " (TorchScript, " + out.source + ")";
  }
  static const std::regex op_name(R"((aten|prim|torchvision|devparity)::[A-Za-z0-9_.]+)");
  std::smatch match;
  if (std::regex_search(error, match, op_name) || std::regex_search(text, match, op_name)) {
    out.op = match.str();
  }

  static const auto compiled = [] {
    std::vector<std::regex> r;
    for (const auto& w : kWordings) r.emplace_back(w.pattern);
    return r;
  }();
  for (size_t i = 0; i < compiled.size(); ++i) {
    if (std::regex_search(error, compiled[i])) {
      out.kind = kWordings[i].kind;
      out.wording = kWordings[i].name;
      if (out.kind == FailureKind::kUnsupported && out.op.empty() &&
          error.find("convolution_overrideable") != std::string::npos) {
        out.op = "aten::convolution_overrideable";
      }
      return out;
    }
  }
  if (parameter_device_mismatch(error)) {
    out.kind = FailureKind::kDeviceMismatch;
    out.wording = "parameter_type";
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
