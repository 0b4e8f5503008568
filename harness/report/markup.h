#pragma once
/// Text for XML and HTML output. Every string that reaches a report page or a
/// JUnit file may come from a case file, a subject or an exception, so it
/// goes through here.

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace devparity {

/// Escapes &, <, >, " and ' and makes the text well-formed XML 1.0 / HTML:
/// control characters other than tab, newline and carriage return, and
/// invalid UTF-8, become U+FFFD.
std::string escape_markup(const std::string& text);

/// A JSON value as text for a page or a message: strings as they are, null
/// as nothing, anything else as compact JSON (invalid UTF-8 replaced).
std::string json_text(const nlohmann::json& value);

}  // namespace devparity
