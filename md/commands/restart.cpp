// `write_restart FILE [noinit]`, `read_restart FILE` and `restart 0 | N FILE [FILE2]` with wafermd's restart
// files (the checkpoint format, md/run/restart_files.cpp). LAMMPS's file-layout keywords (fileper, nfile and
// '%' names for one file per processor) are refused: a wafermd restart file is always one file.
#include "io/text_file.hpp"
#include "md/core/boundaries.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

std::string restart_name(io::ArgCursor& a) {
  const std::string file = a.word("a restart file name");
  if (file.find('%') != std::string::npos)
    a.fail("restart file names with '%' (one file per processor) are not supported: wafermd writes one file");
  // A FIFO or directory of that name would be replaced by the atomic rename: refused here already, at the
  // command (exit 2); write_checkpoint checks again when it writes. A device is written through.
  try {
    io::atomic_replace_target(file, "restart file");
  } catch (const RunError& e) {
    a.fail(e.what());
  }
  return file;
}

void cmd_write_restart(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string file = restart_name(a);
  bool init = true;
  while (!a.done()) {
    const std::string key = a.word("a keyword");
    if (key == "noinit") {
      init = false;
      continue;
    }
    a.fail("write_restart keyword '" + key + "' is not supported (wafermd writes one file; noinit is)");
  }
  // LAMMPS's write_restart (unless noinit) applies pbc and reset_box first, as write_data: the atoms are
  // wrapped and shrink-wrapped faces fitted, in the system and in the file.
  if (init && wrap_and_fit_box(sim.state, sim.comm)) ++sim.state.edits;
  sim.write_restart_file(file);  // the dry run writes into its scratch directory
}

void cmd_read_restart(Simulation& sim, const io::Command& c) {
  sim.require_no_box(c);
  io::ArgCursor a(c);
  const std::string file = a.word("a restart file name");
  if (!a.done()) a.fail("read_restart takes only a file name ('remap' is not supported)");
  sim.read_restart_file(file, c.pos);
}

void cmd_restart(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  // LAMMPS's `restart v_name …`: an equal-style variable gives each next file's step (checked at the run).
  std::string var;
  if (a.peek().rfind("v_", 0) == 0 && a.peek().size() > 2) var = a.word("N or v_name").substr(2);
  const int64_t every = var.empty() ? a.integer("the restart interval (steps, 0: off)", 0, 2000000000) : 0;
  if (every == 0 && var.empty()) {
    a.finish();
    sim.restart_output = RestartOutput{};  // LAMMPS: restart 0 ends both settings
    return;
  }
  const std::string first = restart_name(a);
  std::string second;
  if (!a.done()) second = restart_name(a);
  if (!a.done()) {
    const std::string key = a.word("a keyword");
    a.fail("restart keyword '" + key + "' is not supported (wafermd writes one file)");
  }
  RestartOutput& r = sim.restart_output;
  if (second.empty()) {
    r.every_single = every, r.single = first;
    r.var_single = var, r.pos_single = c.pos;
  } else {
    if (first.find('*') != std::string::npos || second.find('*') != std::string::npos)
      a.fail("restart with two files takes names without '*' (they are overwritten in turn)");
    r.every_double = every, r.pair[0] = first, r.pair[1] = second, r.next = 0;
    r.var_double = var, r.pos_double = c.pos;
  }
}

}  // namespace

WMD_COMMAND("write_restart", cmd_write_restart, kNoPhysics)
WMD_COMMAND("read_restart", cmd_read_restart, kNoFlags)
WMD_COMMAND("restart", cmd_restart, kNoPhysics)

}  // namespace wmd::md
