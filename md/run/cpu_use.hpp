// The log's "CPU use" line, measured as LAMMPS's Finish does: the process's CPU time over the loop (user and
// system, all threads) against the loop's wall time, each averaged over the ranks.
#pragma once
#include <fmt/format.h>

#include <ctime>
#include <string>

#include "md/core/comm.hpp"

namespace wmd::md {

/// CPU seconds this process has used so far (user + system, every thread).
inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// "97.3% CPU use with N MPI tasks x 1 OpenMP threads" (then a blank line), from this rank's loop CPU and
/// wall seconds; collective.
inline std::string cpu_use_line(const Comm& comm, double cpu_seconds, double wall_seconds) {
  const double cpu = comm.sum_in_rank_order(cpu_seconds) / comm.size(), wall = comm.sum_in_rank_order(wall_seconds) / comm.size();
  return fmt::format("{:.1f}% CPU use with {} MPI tasks x 1 OpenMP threads\n",
                     wall > 0.0 ? 100.0 * cpu / wall : cpu, comm.size());
}

}  // namespace wmd::md
