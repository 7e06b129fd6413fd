// `balance` and `fix balance` settings (LAMMPS's shift style): what a run asks of a backend with sub-domains.
#pragma once
#include <cstdint>
#include <string>

#include "io/command.hpp"

namespace wmd::md {

/// LAMMPS's `thresh shift dimstr Niter stopthresh`: balance when the imbalance factor (most atoms in a
/// sub-domain over the mean) exceeds `thresh`, moving the cuts along `dims` by `niter` rounds of bisection
/// each, and stop once the factor is at most `stop`.
struct ShiftBalance {
  double thresh = 1.0;
  std::string dims;  // a subset of "xyz", each at most once
  int niter = 1;
  double stop = 1.0;
};

/// Dynamic balancing (`fix balance Nfreq ...`): at the set-up of each run and, when `every` > 0, at every
/// step that is a multiple of it, where it forces a neighbour rebuild. `every` < 0: none asked for.
struct LoadBalance {
  int every = -1;
  ShiftBalance shift;
  bool active() const { return every >= 0; }
  /// Whether step is one of the periodic balancing steps (not the set-up).
  bool due(int64_t step) const { return every > 0 && step % every == 0; }
};

/// Reads `thresh shift dimstr Niter stopthresh` (the rest of a `balance` or `fix balance` command); bad
/// values, other styles (x, y, z, rcb) and keywords (weight, out) fail with the command's line.
ShiftBalance read_shift_balance(io::ArgCursor& a, const std::string& command);

}  // namespace wmd::md
