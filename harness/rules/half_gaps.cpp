#include "harness/rules/half_gaps.h"

#include <cctype>
#include <map>
#include <sstream>
#include <string>

namespace devparity::device_rules {
namespace data {
extern const char* const kHalfGaps;
}  // namespace data
namespace {

// op base name -> "float16,bfloat16" as the table lists them.
std::map<std::string, std::string, std::less<>> load() {
  std::map<std::string, std::string, std::less<>> gaps;
  std::istringstream in(data::kHalfGaps);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    if (tab != std::string::npos) gaps.emplace(line.substr(0, tab), line.substr(tab + 1));
  }
  return gaps;
}

// "aten::sort_.stable" -> "sort": the op whatever its overload and form.
std::string_view base_name(std::string_view name) {
  if (const auto ns = name.find("::"); ns != std::string_view::npos) name.remove_prefix(ns + 2);
  if (const auto dot = name.find('.'); dot != std::string_view::npos) name = name.substr(0, dot);
  if (name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_') name.remove_suffix(1);
  return name;
}

}  // namespace

bool cuda_lacks_half_kernel(std::string_view qualified_name, std::string_view dtype) {
  static const auto gaps = load();
  const auto it = gaps.find(base_name(qualified_name));
  if (it == gaps.end()) return false;
  std::string_view listed = it->second;
  while (!listed.empty()) {
    const auto comma = listed.find(',');
    if (listed.substr(0, comma) == dtype) return true;
    if (comma == std::string_view::npos) break;
    listed.remove_prefix(comma + 1);
  }
  return false;
}

bool lacks_dtype_kernel(std::string_view message, std::string_view dtype_name) {
  constexpr std::string_view kWording = "not implemented for ";
  for (auto at = message.find(kWording); at != std::string_view::npos; at = message.find(kWording, at + 1)) {
    auto rest = message.substr(at + kWording.size());
    if (!rest.empty() && rest.front() == '\'') rest.remove_prefix(1);
    if (rest.substr(0, dtype_name.size()) == dtype_name &&
        (rest.size() == dtype_name.size() || !std::isalnum(static_cast<unsigned char>(rest[dtype_name.size()])))) {
      return true;
    }
  }
  return false;
}

}  // namespace devparity::device_rules
