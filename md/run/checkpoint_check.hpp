// The whole-checkpoint check run before a restart (`--restart`) or `read_restart` uses anything of a
// checkpoint: every array present with its expected length, counts that add up, ids unique and positive,
// types in range, masses, box, step, timestep and per-atom values finite and sensible. io/checkpoint has
// already checked shapes, types, sizes against the file and the checksum.
#pragma once
#include <string>

#include "base/error.hpp"
#include "io/checkpoint.hpp"
#include "md/core/box.hpp"

namespace wmd::md {

/// Throws InputError at `at`, naming `what` (e.g. "checkpoint 'x.h5'"), at the first inconsistency.
void check_checkpoint(const io::CheckpointData& d, const std::string& what, const SourcePos& at);

/// The box's tilt factors and triclinic flags from a checked checkpoint (none stored: an orthogonal box).
inline void restore_box_tilt(const io::CheckpointData& d, Box& b) {
  const auto t = d.reals.find("box/tilt");
  const bool has = t != d.reals.end() && t->second.size() == 5;
  b.xy = has ? t->second[0] : 0.0, b.xz = has ? t->second[1] : 0.0, b.yz = has ? t->second[2] : 0.0;
  b.triclinic = has && t->second[3] != 0.0;
  b.tilt_large = has && t->second[4] != 0.0;
}

}  // namespace wmd::md
