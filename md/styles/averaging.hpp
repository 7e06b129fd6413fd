// What LAMMPS's averaging fixes (ave/time, ave/chunk, ave/atom, ave/histo, ave/correlate) share: the
// Nevery Nrepeat Nfreq schedule, the first step whose sample enters an average, and the end of a file write.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

#include "io/command.hpp"

namespace wmd::md {

/// Nevery, Nrepeat and Nfreq as the command gives them.
struct AveragingSchedule {
  int64_t nevery = 1, nrepeat = 1, nfreq = 1;
};

/// Reads Nevery Nrepeat Nfreq (each at least 1). With `standard_rule`, also LAMMPS's check of ave/time,
/// ave/chunk, ave/atom and ave/histo: Nfreq a multiple of Nevery and (Nrepeat-1)*Nevery < Nfreq
/// (ave/correlate has its own, which it checks after its keywords).
AveragingSchedule read_averaging_schedule(io::ArgCursor& a, const std::string& who,
                                          bool standard_rule = true);

/// LAMMPS's nvalid: the first step at or after `step` whose sample enters an Nfreq average, averages ending
/// on multiples of nfreq no earlier than `start`.
int64_t averaging_next_valid(int64_t step, int64_t nevery, int64_t nrepeat, int64_t nfreq, int64_t start = 0);

/// After an average is written to `out` (the file `file`): flushes and checks it, and with `overwrite` cuts
/// the file where this average ends (LAMMPS truncates it there). `who` ("fix ave/time ID") names a RunError.
void finish_average_write(std::ofstream& out, const std::string& file, bool overwrite,
                          const std::string& who);

}  // namespace wmd::md
