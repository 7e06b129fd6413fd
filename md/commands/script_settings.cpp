// Settings LAMMPS scripts give that change nothing wafermd computes, accepted only with the values it
// honours: `dimension 3`, `atom_modify id yes | map array|hash|yes | sort Nfreq binsize`, and
// `log FILE [append] | log none` (a copy of the log from here on; log.txt in the output directory goes on).
// LAMMPS's performance and bookkeeping settings — `newton`, `comm_modify`, `comm_style`, `timer`, `suffix`,
// `package`, `special_bonds`, `info` — decide how LAMMPS organises its work (or bonded terms atomic systems
// lack), not what an EAM system computes: their values are checked and the command changes nothing.
#include <fmt/format.h>

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
      sim.script_flags.atom_map = true;
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

void cmd_newton(Simulation& sim, const io::Command& c) {
  // Newton's third law for pairs across sub-domains: the same forces, summed in another order.
  sim.require_no_box(c);
  io::ArgCursor a(c);
  sim.script_flags.newton_pair = a.choice("on or off", {"on", "off"}) == "on";
  sim.script_flags.newton_bond =
      a.done() ? sim.script_flags.newton_pair : a.choice("on or off (bonds)", {"on", "off"}) == "on";
  a.finish();
}

void cmd_comm_modify(Simulation& sim, const io::Command& c) {
  // Ghost cutoffs and velocity ghosts: wafermd's ghosts always reach the pair cutoff plus skin. The cutoff is
  // kept: it widens what compute voronoi/atom tessellates (LAMMPS's cutghost), as in one-rank lmp.
  io::ArgCursor a(c);
  if (a.done()) a.fail("comm_modify needs keywords (mode, cutoff, cutoff/multi, group, vel)");
  while (!a.done()) {
    const std::string key = a.choice("a comm_modify keyword", {"mode", "cutoff", "vel", "group"});
    if (key == "mode")
      a.choice("a comm mode", {"single", "multi"});
    else if (key == "cutoff")
      sim.script_flags.comm_cutoff = a.non_negative("the ghost cutoff (Å)");
    else if (key == "vel")
      a.yes_no("vel");
    else if (a.word("a group ID") != "all")
      a.fail("comm_modify group other than all is not supported");
  }
}

void cmd_comm_style(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  sim.script_flags.comm_style = a.choice("a comm style", {"brick", "tiled"});
  a.finish();
}

// `timer`: the profiling levels change only what LAMMPS prints; `timeout T [every N]` limits the wall time of
// the runs from this command on (T: off, unlimited, or [[HH:]MM:]SS), as LAMMPS's Timer: once passed, the run
// stops and later runs and minimisations do nothing.
double timeout_seconds(const std::string& t, const io::ArgCursor& a) {
  if (t == "off" || t == "unlimited") return -1.0;
  double total = 0.0;
  size_t start = 0;
  int fields = 0;
  while (true) {
    const size_t colon = t.find(':', start);
    const std::string part = t.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    double v = 0.0;
    if (!io::parse_double(part, v) || v < 0.0 || ++fields > 3)
      a.fail("timer timeout: '" + t + "' is not a time ([[HH:]MM:]SS, off or unlimited)");
    total = total * 60.0 + v;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return total;
}

void cmd_timer(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  static const char* const kLevels[] = {"off", "loop", "normal", "full"};
  while (!a.done()) {
    const std::string w = a.word("a timer keyword");
    static const char* const kWords[] = {"off",  "loop",   "normal",  "full",
                                         "sync", "nosync", "timeout", "every"};
    bool known = false;
    for (const char* k : kWords) known = known || w == k;
    if (!known)
      a.fail("timer: unknown keyword '" + w + "' (off, loop, normal, full, sync, nosync, timeout, every)");
    if (w == "timeout") {
      sim.timeout_limit = timeout_seconds(a.word("a timeout (elapsed time or off)"), a);
      sim.timeout_start = std::chrono::steady_clock::now();
      // A limit of 0 has passed already (later runs do nothing); off, or a new limit, lifts an expiry.
      sim.timeout_expired = sim.timeout_limit == 0.0;
    } else if (w == "every") {
      sim.timeout_every = static_cast<int>(a.integer("the timeout check interval (steps)", 1, 1000000000));
    } else if (w == "sync" || w == "nosync") {
      sim.timer_mode = w;
    } else {
      for (const char* k : kLevels)
        if (w == k) sim.timer_style = w;
    }
  }
  std::string limit = "off";
  if (sim.timeout_limit >= 0.0) {
    const long s = static_cast<long>(sim.timeout_limit);
    limit = fmt::format("{:02d}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60);
  }
  if (!sim.dry_run)
    sim.log.line("New timer settings: style=" + sim.timer_style + "  mode=" + sim.timer_mode +
                 "  timeout=" + limit);
}

void cmd_suffix(Simulation&, const io::Command& c) {
  // Accelerated variants of styles (omp, gpu, kk, intel, opt): wafermd picks its own kernels.
  io::ArgCursor a(c);
  a.word("a suffix (on, off, or a style suffix)");
  if (!a.done()) a.word("a second suffix");
  a.finish();
}

void cmd_package(Simulation& sim, const io::Command& c) {
  sim.require_no_box(c);  // as in LAMMPS
  io::ArgCursor a(c);
  sim.script_flags.packages.insert(a.choice("a package", {"gpu", "intel", "kokkos", "omp"}));
  while (!a.done()) a.word("a package setting");
}

void cmd_special_bonds(Simulation&, const io::Command& c) {
  // Weights of bonded neighbours: atom_style atomic has no bonds.
  io::ArgCursor a(c);
  if (a.done()) a.fail("special_bonds needs a keyword");
  while (!a.done()) a.word("a special_bonds setting");
}

void cmd_info(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  while (!a.done()) a.word("an info category");
  if (sim.dry_run) return;
  sim.log.line("\nInfo-Info-Info-Info-Info-Info-Info-Info-Info-Info-Info");
  sim.log.line("wafermd: units metal, atom_style atomic, " + std::to_string(sim.natoms()) + " atoms, step " +
               std::to_string(sim.state.step) + ", " + std::to_string(sim.fixes.size()) + " fixes, " +
               std::to_string(sim.computes.size()) + " computes");
  sim.log.line("Info-Info-Info-Info-Info-Info-Info-Info-Info-Info-Info\n");
}

}  // namespace

WMD_COMMAND("log", cmd_log, kNoPhysics)
WMD_COMMAND("newton", cmd_newton, kNoPhysics)
WMD_COMMAND("comm_modify", cmd_comm_modify, kNoPhysics)
WMD_COMMAND("comm_style", cmd_comm_style, kNoPhysics)
WMD_COMMAND("timer", cmd_timer, kNoPhysics)
WMD_COMMAND("suffix", cmd_suffix, kNoPhysics)
WMD_COMMAND("package", cmd_package, kNoPhysics)
WMD_COMMAND("special_bonds", cmd_special_bonds, kNoPhysics)
WMD_COMMAND("info", cmd_info, kNoPhysics)
WMD_COMMAND("dimension", cmd_dimension, kNoFlags)
WMD_COMMAND("atom_modify", cmd_atom_modify, kNoPhysics)

}  // namespace wmd::md
