#include "md/run/script_replay.hpp"

namespace wmd::md {

size_t replay_script(io::LammpsScript& script, Simulation& sim,
                     const std::function<void(const io::Command&)>& before, size_t max_commands) {
  io::Command cmd;
  size_t count = 0, read = 0;
  while (read < max_commands && script.next(cmd)) {
    ++read;
    if (before) before(cmd);
    // LAMMPS's run … every breaks off at a segment once fix halt expired the time limit: the later segments
    // and their commands are not executed.
    if (cmd.name == "run" && sim.timeout_expired && script.in_run_every()) {
      script.end_run_every();
      continue;
    }
    sim.execute(cmd), ++count;
  }
  return count;
}

}  // namespace wmd::md
