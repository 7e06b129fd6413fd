#pragma once
// Feeding a LAMMPS script's commands into a Simulation: the one loop that `wafermd run` (dry run and real
// run) and the styles fuzzer share, so that what the fuzzer exercises is what a run executes.
#include <cstddef>
#include <functional>
#include <limits>

#include "io/command.hpp"
#include "io/lammps_script.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {

/// Executes the script's commands in `sim` until the script ends or `max_commands` have been read;
/// `before` (may be empty) is called before each. A `run` segment of `run … every` that follows a fix halt's
/// expired time limit is skipped with the rest of that `run … every`, as LAMMPS breaks off there. Returns
/// how many commands were executed.
size_t replay_script(io::LammpsScript& script, Simulation& sim,
                     const std::function<void(const io::Command&)>& before = {},
                     size_t max_commands = std::numeric_limits<size_t>::max());

}  // namespace wmd::md
