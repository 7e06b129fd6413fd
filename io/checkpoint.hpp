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
/// The format written: 2 adds the checksum attribute (1 is still read, without one).
inline constexpr int kCheckpointFormat = 2;

/// Reads a checkpoint; a missing, unreadable or damaged file (a dataset of an unexpected shape or type, one
/// declaring more values than the file holds, a checksum that does not match) is an InputError at `from`.
/// The meaning of the arrays is checked by md/ (md/run/checkpoint_check.cpp).
CheckpointData read_checkpoint(const std::string& path, const SourcePos& from);

/// A 64-bit checksum over every name and value of `data` (stored with the file and checked on reading).
uint64_t checkpoint_checksum(const CheckpointData& data);

/// FNV-1a 64-bit hash of a text, as 16 hex digits (the physics fingerprint of an input).
std::string fnv1a_hex(const std::string& text);

}  // namespace wmd::io
