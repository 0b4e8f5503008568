#pragma once
/// Files that are either completely written or not there at all.

#include <string>

namespace devparity {

/// Creates the parent folders of `path` when missing. Throws InputError.
void ensure_parent_directory(const std::string& path);

/// What an output path names, links followed.
enum class OutputKind {
  kFile,     ///< a regular file, or nothing yet: replaced atomically
  kStream,   ///< a character device or a FIFO (/dev/null, /dev/stdout's pipe): written through
  kFolder,   ///< a folder: no file output may be one
  kRefused,  ///< a block device, a socket: never written
};
OutputKind output_kind(const std::string& path);

/// Why `path` is kRefused ("is a block device; ..."); empty otherwise.
std::string output_kind_refusal(const std::string& path);

/// Writes `content` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over `path`, so readers never see half a file
/// and a crash leaves the previous version. A link stays a link (the file it
/// names is replaced); a character device or FIFO is written through, never
/// replaced; a block device or socket is refused. Throws InputError naming
/// the path, on any write error too (/dev/full).
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace devparity
