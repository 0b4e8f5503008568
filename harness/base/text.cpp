#include "harness/base/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

namespace devparity {

nlohmann::json json_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

std::string number_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return fmt::format("{:g}", value);
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    const auto begin = current.find_first_not_of(' ');
    if (begin != std::string::npos) {
      const auto end = current.find_last_not_of(' ');
      out.push_back(current.substr(begin, end - begin + 1));
    }
    current.clear();
  };
  for (char c : text) {
    if (c == sep) {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return out;
}

void add_unique(std::vector<std::string>& to, const std::string& value) {
  if (std::find(to.begin(), to.end(), value) == to.end()) to.push_back(value);
}

bool glob_match(const std::string& pattern, const std::string& name) {
  // Iterative matcher with backtracking to the last '*'.
  size_t p = 0, n = 0, star = std::string::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool filter_match(const std::string& filter, const std::string& name) {
  if (filter.empty()) return true;
  const auto dash = filter.find('-');
  const std::string positive = dash == std::string::npos ? filter : filter.substr(0, dash);
  const std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
  bool included = positive.empty();
  for (const auto& glob : split(positive, ':')) {
    if (glob_match(glob, name)) {
      included = true;
      break;
    }
  }
  if (!included) return false;
  for (const auto& glob : split(negative, ':')) {
    if (glob_match(glob, name)) return false;
  }
  return true;
}

std::string join_shape(const std::vector<int64_t>& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += 'x';
    out += std::to_string(shape[i]);
  }
  return out;
}

bool is_identifier(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string file_stem_identifier(const std::string& path, const std::string& keep) {
  auto stem = path.substr(path.find_last_of('/') + 1);
  if (const auto dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
  for (auto& c : stem) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                    keep.find(c) != std::string::npos;
    if (!ok) c = '_';
  }
  return stem;
}

std::optional<int64_t> parse_count(const std::string& text, size_t max_digits) {
  if (text.empty() || text.size() > max_digits || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoll(text);
}

bool inside_torch(const std::string& path) {
  // torch's top-level modules and packages, as they follow ".../torch/".
  static const char* const kTorchParts[] = {
      "nn/",      "jit/",        "autograd/", "functional.py", "_",          "utils/",     "fx/",
      "ao/",      "cuda/",       "amp/",      "backends/",     "distributions/", "overrides.py",
      "random.py", "serialization.py", "testing/", "linalg/",  "fft/",       "special/",   "sparse/",
      "masked/",  "onnx/",       "quantization/", "nested/",   "storage.py", "types.py",   "library.py",
      "hub.py",   "__init__.py", "functional.pyi", "return_types.py", "package/", "profiler/"};
  for (size_t at = path.rfind("torch/"); at != std::string::npos;
       at = at == 0 ? std::string::npos : path.rfind("torch/", at - 1)) {
    if (at > 0 && path[at - 1] != '/') continue;  // "mytorch/", "torchvision/" are not torch's
    const auto rest = path.substr(at + 6);
    for (const char* part : kTorchParts) {
      if (rest.rfind(part, 0) == 0) return true;
    }
  }
  return false;
}

}  // namespace devparity
