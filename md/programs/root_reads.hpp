// The MPI side of base/root_read.hpp for `wafermd run`: while a RootReads lives (on every rank of a job of
// more than one), each input file is read by rank 0 alone, as LAMMPS reads it, and its text or its error is
// broadcast on a communicator of its own. Every rank therefore sees rank 0's files: a rank whose working
// directory or node-local /tmp holds other copies, or none, runs the same input; a file rank 0 cannot read is
// the same error on every rank (one error line, exit 2, as any error every rank shares).
#pragma once
#include "md/core/comm.hpp"
#include "md/programs/lockstep.hpp"

namespace wmd::md {

class RootReads {
 public:
  /// Collective: every rank, at the same point, before any file is read. The ranks agree (`step`) before
  /// each read, so that one that only some ranks make ends the job as a divergent command does.
  RootReads(Comm& world, const Lockstep& step);
  /// Reads locally again.
  ~RootReads();
  RootReads(const RootReads&) = delete;
  RootReads& operator=(const RootReads&) = delete;
};

}  // namespace wmd::md
