// Settings LAMMPS scripts give that change nothing wafermd computes, accepted only with the values it
// honours: `dimension 3`, `atom_modify id yes | map array|hash|yes | sort Nfreq binsize`, and
// `log FILE [append] | log none` (a copy of the log from here on; log.txt in the output directory goes on).
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_dimension(Simulation& sim, const io::Command& c) {
  sim.require_no_box(c);
  io::ArgCursor a(c);
  if (a.integer("the dimension", 2, 3) != 3) a.fail("dimension 2 is not supported (wafermd is 3d)");
  a.finish();
}

void cmd_atom_modify(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  if (a.done()) a.fail("atom_modify needs a keyword (id, map, sort)");
  while (!a.done()) {
    const std::string key = a.choice("an atom_modify keyword", {"id", "map", "sort", "first"});
    if (key == "first") a.fail("atom_modify first is not supported");
    if (key == "sort") {
      // LAMMPS's spatial sort of its atom arrays, which wafermd follows in Atoms::order.
      const long long every = a.integer("the sort interval (steps, 0: never)", 0, 2000000000);
      const double binsize = a.non_negative("the sort bin size (Å, 0: half the neighbour cutoff)");
      sim.atom_sort.every = static_cast<int>(every);
      sim.atom_sort.binsize = binsize;
      continue;
    }
    // id and map decide how LAMMPS stores atoms, not what it computes; they must precede the box as in
    // LAMMPS.
    if (sim.state.box.defined) a.fail("atom_modify " + key + " must come before the box is created");
    if (key == "id") {
      if (!a.yes_no("id")) a.fail("atom_modify id no is not supported (wafermd atoms always have ids)");
    } else {
      a.choice("a map style", {"array", "hash", "yes"});
    }
  }
}

void cmd_log(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string file = a.word("a log file name or none");
  const bool append = !a.done() && a.choice("append", {"append"}) == "append";
  a.finish();
  if (sim.dry_run) return;
  // Rank 0 writes; every rank learns whether it could, so all stop alike.
  int ok = sim.log.copy_to(file == "none" ? std::string() : file, append) ? 1 : 0;
  sim.comm.broadcast(&ok, 1);
  if (!ok) throw RunError("log: cannot write '" + file + "'");
}

}  // namespace

WMD_COMMAND("log", cmd_log, kNoPhysics)
WMD_COMMAND("dimension", cmd_dimension, kNoFlags)
WMD_COMMAND("atom_modify", cmd_atom_modify, kNoPhysics)

}  // namespace wmd::md
