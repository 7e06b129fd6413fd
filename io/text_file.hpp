// Reading and writing text files that may be gzip-compressed (LAMMPS reads `file.gz` data files and writes
// `dump …/gz`): the compression follows the file name's `.gz` ending, as in LAMMPS.
#pragma once
#include <cstdio>
#include <ostream>
#include <string>

#include "base/error.hpp"

namespace wmd::io {

/// True when `path` ends in ".gz".
bool is_gz_name(const std::string& path);
/// Files larger than this (decompressed) are refused unless a caller gives its own bound.
inline constexpr size_t kMaxTextFileBytes = size_t(4) << 30;

/// The whole text of `path`, decompressed when it ends in .gz; a missing, corrupt or non-regular file (a
/// directory, /dev/zero, a pipe) or one larger than `max_bytes` is an InputError at `from` naming `what`
/// (e.g. "data file").
std::string read_text_file(const std::string& path, const std::string& what, const SourcePos& from,
                           size_t max_bytes = kMaxTextFileBytes);
/// As read_text_file, but never decompressing (an input script or YAML file is read as it is).
std::string read_plain_file(const std::string& path, const std::string& what, const SourcePos& from,
                            size_t max_bytes);

/// A lost write to an output (a full disk: ENOSPC, an I/O error) is a run failure naming the file, never
/// silence: throws RunError "cannot write WHAT 'PATH': REASON".
[[noreturn]] void fail_write(const std::string& path, const std::string& what);
/// Flushes `out` and calls fail_write if anything written to it so far was lost.
void check_written(std::ostream& out, const std::string& path, const std::string& what);
/// Where an atomic replace of a path (write a temporary file, then rename it over the path) puts the result.
struct ReplaceTarget {
  std::string path;     // the path itself, or the file its symlinks lead to (so that a link survives)
  bool device = false;  // a character or block device (/dev/null, /dev/full): written through, never replaced
  /// The temporary file written first: beside the file, or in the system's temporary directory for a device.
  std::string temporary() const;
};
/// The target of an atomic replace of `path`. A FIFO (an open would wait for a reader), a directory or a
/// socket is a RunError naming it: a rename would replace the node itself.
ReplaceTarget atomic_replace_target(const std::string& path, const std::string& what);
/// Puts the finished temporary file `tmp` in place: renamed over a file, or its bytes written into a device
/// (then removed). A lost write or a failed rename is fail_write (RunError naming `what` and the path).
void finish_replace(const std::string& tmp, const ReplaceTarget& target, const std::string& what);

/// A text file being written, plain or gzip-compressed.
class TextSink {
 public:
  TextSink() = default;
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;
  ~TextSink() { close(); }
  /// Opens (truncates) `path`, compressed when `gz`; false if it cannot be written.
  bool open(const std::string& path, bool gz);
  bool is_open() const { return plain_ != nullptr || gz_ != nullptr; }
  /// Appends text; false on an I/O error.
  bool write(const std::string& text);
  /// Flushes what was written so far (gz: a complete deflate block, readable by zcat); false on an error.
  bool flush();
  /// Closes the file; false if what was still buffered could not be written.
  bool close();

 private:
  std::FILE* plain_ = nullptr;
  void* gz_ = nullptr;  // gzFile
};

}  // namespace wmd::io
