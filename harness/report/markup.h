#pragma once
/// Text for XML, HTML, Markdown and terminal output. Every string that
/// reaches a report page, a JUnit file, a PR comment or a console may come
/// from a case file, a subject or an exception, so it goes through here.

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

/// One line of GitHub Markdown that shows `text` as text, wherever it came
/// from: &, < and > as entities (no HTML, no comment hiding the rest of a PR
/// comment), @ as an entity (no mention), the punctuation of links, images,
/// code spans and tables ([ ] ! ` | \\) backslash-escaped, control characters
/// as spaces and invalid UTF-8 as U+FFFD.
std::string markdown_text(const std::string& text);

/// `text` inside a Markdown code span: a backtick would end the span and a
/// pipe the table cell, so they become ' and \|; control characters spaces.
std::string markdown_code(const std::string& text);

/// `text` for a terminal: control characters but newline and tab (ANSI
/// escape sequences among them), DEL and C1 controls shown as \xHH or
/// \uHHHH, so a message cannot move the cursor, recolour or rewrite a line.
std::string terminal_text(const std::string& text);

}  // namespace devparity
