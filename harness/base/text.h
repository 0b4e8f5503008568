#pragma once
/// Small string helpers shared across the harness.

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace devparity {

/// Splits on `sep`, trims spaces, drops empty pieces.
std::vector<std::string> split(const std::string& text, char sep);

/// Appends `value` unless `to` already holds it (first-seen order).
void add_unique(std::vector<std::string>& to, const std::string& value);

/// True when `name` matches the glob `pattern` (`*` and `?`).
bool glob_match(const std::string& pattern, const std::string& name);

/// A gtest-style filter: "POS1:POS2-NEG1:NEG2", each a glob. Empty matches all.
bool filter_match(const std::string& filter, const std::string& name);

/// A double for JSON: a number when finite, else "Infinity", "-Infinity" or "NaN".
nlohmann::json json_number(double value);

/// A double for messages: "{:g}" when finite, else as json_number spells it.
std::string number_text(double value);

/// "2x3x17x11" for {2, 3, 17, 11}.
std::string join_shape(const std::vector<int64_t>& shape);

/// True when `name` is a non-empty identifier of [A-Za-z0-9_].
bool is_identifier(const std::string& name);

/// A count written as 1 to `max_digits` decimal digits ("42"), or nullopt.
std::optional<int64_t> parse_count(const std::string& text, size_t max_digits);

/// True when `path` is one of PyTorch's own Python files
/// (".../site-packages/torch/nn/functional.py"): source frames there are
/// torch's, not the subject's, when findings name the subject's line.
bool inside_torch(const std::string& path);

/// A file's name without folders and extension, with every character but
/// [A-Za-z0-9_] and those in `keep` replaced by '_': "models/jit-ter.pt" ->
/// "jit_ter".
std::string file_stem_identifier(const std::string& path, const std::string& keep = "");

}  // namespace devparity
