#include "harness/base/json_source.h"

#include "harness/base/error.h"
#include "harness/base/input_file.h"

#include <fmt/format.h>


namespace devparity {
namespace {

SourcePosition position_of(std::string_view text, size_t offset) {
  SourcePosition pos{1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Text nested deeper than kMaxJsonDepth, refused where it passes the bound:
// nlohmann's tree, its destructor, dump() and the indexer below all recurse.
void check_depth(const std::string& name, std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) {
        const auto pos = position_of(text, i);
        throw InputError(fmt::format("{}:{}:{}: JSON nested deeper than {} levels", name, pos.line, pos.column,
                                     kMaxJsonDepth));
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
}

// Two members of one object with the same key (the Indexer's finding).
struct DuplicateKey {
  std::string pointer;
  SourcePosition first, second;
};

// A scanner that only records where values start; nlohmann has already
// validated the text, so it trusts the syntax and keeps going on oddities.
class Indexer {
 public:
  Indexer(std::string_view text, std::unordered_map<std::string, SourcePosition>& values,
          std::unordered_map<std::string, SourcePosition>& keys)
      : text_(text), values_(values), keys_(keys) {}

  void run() {
    skip_ws();
    value("");
  }

 private:
  // Line/column are tracked incrementally as the scanner advances.
  void advance() {
    if (i_ < text_.size()) {
      if (text_[i_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
      ++i_;
    }
  }
  SourcePosition here() const { return {line_, col_}; }
  char peek() const { return i_ < text_.size() ? text_[i_] : '\0'; }
  void skip_ws() {
    while (i_ < text_.size() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) {
      advance();
    }
  }

  std::string string_token() {
    std::string out;
    advance();  // opening quote
    while (i_ < text_.size() && peek() != '"') {
      if (peek() == '\\') {
        advance();
        const char e = peek();
        advance();
        switch (e) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'u': {
            uint32_t cp = hex4();
            if (cp >= 0xD800 && cp < 0xDC00 && peek() == '\\') {
              advance();
              advance();  // 'u'
              const uint32_t low = hex4();
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            append_utf8(out, cp);
            break;
          }
          default: out += e;
        }
      } else {
        out += peek();
        advance();
      }
    }
    advance();  // closing quote
    return out;
  }

  uint32_t hex4() {
    uint32_t v = 0;
    for (int k = 0; k < 4 && i_ < text_.size(); ++k) {
      const char c = peek();
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      advance();
    }
    return v;
  }

  void value(const std::string& pointer) {
    values_[pointer] = here();
    const char c = peek();
    if (c == '{') {
      advance();
      skip_ws();
      while (i_ < text_.size() && peek() != '}') {
        const auto key_pos = here();
        const std::string key = string_token();
        const std::string child = pointer_append(pointer, key);
        // nlohmann keeps the last of repeated keys: a case file's earlier
        // value would vanish without a word.
        const auto [it, added] = keys_.emplace(child, key_pos);
        if (!added) throw DuplicateKey{child, it->second, key_pos};
        skip_ws();
        if (peek() == ':') advance();
        skip_ws();
        value(child);
        skip_ws();
        if (peek() == ',') advance();
        skip_ws();
      }
      advance();
    } else if (c == '[') {
      advance();
      skip_ws();
      size_t index = 0;
      while (i_ < text_.size() && peek() != ']') {
        value(pointer + "/" + std::to_string(index++));
        skip_ws();
        if (peek() == ',') advance();
        skip_ws();
      }
      advance();
    } else if (c == '"') {
      string_token();
    } else {
      while (i_ < text_.size() && peek() != ',' && peek() != '}' && peek() != ']' &&
             peek() != ' ' && peek() != '\n' && peek() != '\t' && peek() != '\r') {
        advance();
      }
    }
  }

  std::string_view text_;
  std::unordered_map<std::string, SourcePosition>& values_;
  std::unordered_map<std::string, SourcePosition>& keys_;
  size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::string pointer_append(const std::string& pointer, const std::string& token) {
  std::string out = pointer + "/";
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

JsonSourceMap::JsonSourceMap(std::string_view text) { Indexer(text, values_, keys_).run(); }

SourcePosition JsonSourceMap::find(const std::string& pointer, bool key) const {
  if (key) {
    const auto it = keys_.find(pointer);
    if (it != keys_.end()) return it->second;
  }
  std::string p = pointer;
  while (true) {
    const auto it = values_.find(p);
    if (it != values_.end()) return it->second;
    if (p.empty()) return {};
    const auto slash = p.rfind('/');
    p = slash == std::string::npos ? "" : p.substr(0, slash);
  }
}

std::string JsonDocument::where(const std::string& pointer, bool key) const {
  const auto pos = map.find(pointer, key);
  if (pos.line == 0) return path;
  return fmt::format("{}:{}:{}", path, pos.line, pos.column);
}

std::string JsonDocument::error(const std::string& pointer, const std::string& message,
                                bool key) const {
  return fmt::format("{}: {}: {}", where(pointer, key), pointer.empty() ? "(document)" : pointer,
                     message);
}

JsonDocument parse_json_text(const std::string& name, const std::string& text) {
  JsonDocument doc;
  doc.path = name;
  doc.value = parse_json_value(name, text);
  try {
    doc.map = JsonSourceMap(text);
  } catch (const DuplicateKey& d) {
    throw InputError(fmt::format("{}:{}:{}: {}: the key is given twice in one object (first at {}:{})", name,
                                 d.second.line, d.second.column, d.pointer, d.first.line, d.first.column));
  }
  return doc;
}

nlohmann::json parse_json_value(const std::string& name, std::string_view text) {
  check_depth(name, text);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const auto pos = position_of(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    const auto colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw InputError(fmt::format("{}:{}:{}: invalid JSON: {}", name, pos.line, pos.column, what));
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double (out_of_range.406), and the like.
    throw InputError(fmt::format("{}: invalid JSON: {}", name, e.what()));
  }
}

JsonDocument load_json_file(const std::string& path) { return parse_json_text(path, read_input_file(path)); }

}  // namespace devparity
