// The world communicator when MPI is running, or none (in-process unit tests that never start MPI): the
// output and checkpoint code then behaves as rank 0 of one.
#pragma once
#include <mpi.h>

#include <memory>

#include "md/comm.hpp"

namespace wmd::md {

/// A Comm over MPI_COMM_WORLD, or nullptr when MPI is not initialised.
inline std::unique_ptr<Comm> world_comm() {
  int on = 0, off = 0;
  MPI_Initialized(&on);
  MPI_Finalized(&off);
  if (!on || off) return nullptr;
  return std::make_unique<Comm>();
}

}  // namespace wmd::md
