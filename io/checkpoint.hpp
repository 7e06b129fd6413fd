// Checkpoint files: a flat set of named arrays (paths like "atoms/x", "fixes/<id>/name") written to
// checkpoint.h5 atomically — a temporary file, flushed (H5Fflush + fsync) and renamed over the previous
// checkpoint only when complete — so a crash at any moment leaves the previous checkpoint loadable.
// io/ knows nothing of what the arrays mean: md/ fills and interprets them.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace wmd::io {

struct CheckpointData {
  std::map<std::string, std::vector<double>> reals;
  std::map<std::string, std::vector<int64_t>> ints;
  std::map<std::string, std::string> texts;

  /// Serialises to bytes (for a broadcast from the reading rank); from_bytes inverts it.
  std::vector<char> to_bytes() const;
  static CheckpointData from_bytes(const std::vector<char>& bytes);
};

/// Writes `data` to `path` through `path`.tmp + flush + fsync + rename. Honours the fault-injection switch
/// WAFERMD_FAULT_CHECKPOINT=kill[:N] (tests only): the N-th write (default 1st) SIGKILLs the process
/// halfway through the temporary file. I/O failures are RunErrors.
void write_checkpoint(const std::string& path, const CheckpointData& data);
/// Reads a checkpoint; a missing or unreadable file is an InputError at `from`.
CheckpointData read_checkpoint(const std::string& path, const SourcePos& from);

/// FNV-1a 64-bit hash of a text, as 16 hex digits (the physics fingerprint of an input).
std::string fnv1a_hex(const std::string& text);

}  // namespace wmd::io
