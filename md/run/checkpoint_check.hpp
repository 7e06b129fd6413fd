// The whole-checkpoint check run before a restart (`--restart`) or `read_restart` uses anything of a
// checkpoint: every array present with its expected length, counts that add up, ids unique and positive,
// types in range, masses, box, step, timestep and per-atom values finite and sensible. io/checkpoint has
// already checked shapes, types, sizes against the file and the checksum.
#pragma once
#include <string>

#include "base/error.hpp"
#include "io/checkpoint.hpp"

namespace wmd::md {

/// Throws InputError at `at`, naming `what` (e.g. "checkpoint 'x.h5'"), at the first inconsistency.
void check_checkpoint(const io::CheckpointData& d, const std::string& what, const SourcePos& at);

}  // namespace wmd::md
