// `reset_atom_ids` (and its later name `reset_atoms id`): ids 1..N in one-rank LAMMPS's atom order, as
// LAMMPS renumbers them on one rank (each rank counts its atoms in array order after the lower ranks'), so
// the ids equal one-rank lmp's whatever the rank count. Scripts use it after deleting atoms.
#include <fmt/format.h>

#include "md/core/lammps_order.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void reset_ids(Simulation& sim, const io::Command& c, io::ArgCursor& a) {
  sim.require_box(c);
  while (!a.done()) {
    a.choice("a reset_atom_ids keyword", {"sort"});
    if (a.yes_no("sort"))
      a.fail(
          "reset_atom_ids sort yes (LAMMPS's spatial renumbering) is not supported; without it the ids "
          "follow one-rank LAMMPS's atom order");
  }
  // Styles that remember atoms by id since their definition would then follow other atoms.
  for (const auto& c : sim.computes)
    if (c->style() == "msd" || c->style() == "displace/atom")
      a.fail("reset_atom_ids: compute " + c->id() + " (" + c->style() +
             ") keeps reference positions by atom id; define it after the renumbering");
  for (const auto& f : sim.fixes)
    if (f->style() == "store/state")
      a.fail("reset_atom_ids: fix " + f->id() +
             " (store/state) keeps values by atom id; define it after the "
             "renumbering");
  compress_ids(sim.state.atoms);
  ++sim.state.edits;
  sim.forces_current = false;
  if (!sim.dry_run) sim.log.line(fmt::format("Resetting atom IDs ...\n  {} atoms", sim.natoms()));
}

void cmd_reset_atom_ids(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  reset_ids(sim, c, a);
}

void cmd_reset_atoms(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string what = a.choice("what reset_atoms renumbers", {"id", "image", "mol"});
  if (what != "id") a.fail("reset_atoms " + what + " is not supported (reset_atoms id is)");
  reset_ids(sim, c, a);
}

}  // namespace

WMD_COMMAND("reset_atom_ids", cmd_reset_atom_ids, kNoFlags)
WMD_COMMAND("reset_atoms", cmd_reset_atoms, kNoFlags)

}  // namespace wmd::md
