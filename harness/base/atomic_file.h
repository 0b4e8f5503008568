#pragma once
/// Files that are either completely written or not there at all.

#include <string>

namespace devparity {

/// Creates the parent folders of `path` when missing. Throws InputError.
void ensure_parent_directory(const std::string& path);

/// Writes `content` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over `path`, so readers never see half a file
/// and a crash leaves the previous version. Throws InputError naming the path.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace devparity
