#pragma once
/// JSON files with positions: errors found after parsing still say
/// file:line:column and the JSON pointer of the field.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <unordered_map>

namespace devparity {

/// A 1-based line and column in a text file.
struct SourcePosition {
  int line = 0;    ///< 0 when unknown
  int column = 0;  ///< 0 when unknown
};

/// Positions of every value (and of every object member's key) in a JSON text,
/// keyed by JSON pointer ("/cases/0/params/size").
class JsonSourceMap {
 public:
  JsonSourceMap() = default;
  /// Indexes `text`, which must be valid JSON.
  explicit JsonSourceMap(std::string_view text);

  /// Position of the value at `pointer`; for a pointer that does not exist,
  /// the position of its nearest existing ancestor. With `key` set, the
  /// position of the member's key instead of its value (for "unknown field").
  SourcePosition find(const std::string& pointer, bool key = false) const;

 private:
  std::unordered_map<std::string, SourcePosition> values_;
  std::unordered_map<std::string, SourcePosition> keys_;
};

/// A parsed JSON file that remembers where each value came from.
struct JsonDocument {
  std::string path;      ///< as given by the user
  nlohmann::json value;  ///< the parsed document
  JsonSourceMap map;     ///< positions by JSON pointer

  /// "path:line:column" of the value at `pointer` (of its key with `key`).
  std::string where(const std::string& pointer, bool key = false) const;
  /// An InputError message: "path:line:col: pointer: message".
  std::string error(const std::string& pointer, const std::string& message,
                    bool key = false) const;
};

/// How deep devparity's JSON nests at most (a case file, a report); deeper
/// text is refused before it is parsed, as every reader of a JSON tree
/// recurses.
constexpr int kMaxJsonDepth = 256;

/// Reads and parses a JSON file (read_input_file's bound). Throws InputError
/// naming the path when it cannot be read, and path:line:column when it is
/// not valid JSON, nests deeper than kMaxJsonDepth or repeats a key in an
/// object.
JsonDocument load_json_file(const std::string& path);

/// Parses JSON text from memory (`name` is used in messages), as load_json_file.
JsonDocument parse_json_text(const std::string& name, const std::string& text);

/// Parses one JSON value without positions (a line of a log, an option's
/// text), with the same refusals: `name` says where it came from.
nlohmann::json parse_json_value(const std::string& name, std::string_view text);

/// Appends one token to a JSON pointer, escaping '~' and '/'.
std::string pointer_append(const std::string& pointer, const std::string& token);

}  // namespace devparity
