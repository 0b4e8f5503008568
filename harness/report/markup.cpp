#include "harness/report/markup.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>

namespace devparity {
namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at text[i], or 0.
size_t utf8_length(const std::string& text, size_t i) {
  const auto b = static_cast<uint8_t>(text[i]);
  size_t n = 0;
  uint32_t min = 0;
  if (b < 0x80) return 1;
  if ((b & 0xE0) == 0xC0) { n = 2; min = 0x80; }
  else if ((b & 0xF0) == 0xE0) { n = 3; min = 0x800; }
  else if ((b & 0xF8) == 0xF0) { n = 4; min = 0x10000; }
  else return 0;
  if (i + n > text.size()) return 0;
  uint32_t cp = b & (0xFF >> (n + 1));
  for (size_t k = 1; k < n; ++k) {
    const auto c = static_cast<uint8_t>(text[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are not text.
  if (cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF || cp == 0xFFFE || cp == 0xFFFF) return 0;
  return n;
}

// Calls `each(character)` for each character of `text` (its UTF-8 bytes), with
// invalid UTF-8 as U+FFFD.
template <typename Each>
void for_each_character(const std::string& text, Each each) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_length(text, i);
    each(n == 0 ? std::string(kReplacement) : text.substr(i, n));
    i += n == 0 ? 1 : n;
  }
}

bool is_control(const std::string& c) {
  const auto b = static_cast<uint8_t>(c[0]);
  const bool c1 = c.size() == 2 && b == 0xC2 && static_cast<uint8_t>(c[1]) < 0xA0;  // U+0080..U+009F
  return (c.size() == 1 && (b < 0x20 || b == 0x7F)) || c1;
}

}  // namespace

std::string markdown_text(const std::string& text) {
  std::string out;
  for_each_character(text, [&](const std::string& c) {
    if (is_control(c)) {
      out += ' ';
    } else if (c == "&") {
      out += "&amp;";
    } else if (c == "<") {
      out += "&lt;";
    } else if (c == ">") {
      out += "&gt;";
    } else if (c == "@") {
      out += "&#64;";
    } else if (c.size() == 1 && std::string("\\`[]!|").find(c[0]) != std::string::npos) {
      out += '\\' + c;
    } else {
      out += c;
    }
  });
  return out;
}

std::string markdown_code(const std::string& text) {
  std::string out;
  for_each_character(text, [&](const std::string& c) {
    if (is_control(c)) out += ' ';
    else if (c == "`") out += '\'';
    else if (c == "|") out += "\\|";
    else out += c;
  });
  return out;
}

std::string terminal_text(const std::string& text) {
  std::string out;
  for_each_character(text, [&](const std::string& c) {
    const auto b = static_cast<uint8_t>(c[0]);
    if (c == "\n" || c == "\t" || !is_control(c)) {
      out += c;
    } else if (c.size() == 1) {
      out += fmt::format("\\x{:02X}", b);
    } else {
      out += fmt::format("\\u{:04X}", static_cast<uint8_t>(c[1]));
    }
  });
  return out;
}

std::string json_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string escape_markup(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const size_t n = utf8_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': case '\n': case '\r': out += c; break;
      default:
        if (static_cast<uint8_t>(c) < 0x20 || c == 0x7F) out += kReplacement;
        else out += c;
    }
    ++i;
  }
  return out;
}

}  // namespace devparity
