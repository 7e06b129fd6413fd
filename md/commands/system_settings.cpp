// Settings that fix the system's conventions before (or right after) the box exists: units, atom_style,
// boundary, processors, mass, timestep, reset_timestep, run_style.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_units(Simulation&, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string u = a.word("a unit style");
  a.finish();
  if (u != "metal") a.fail("units '" + u + "' is not supported: wafermd uses LAMMPS units metal (Å, eV, ps)");
}

void cmd_atom_style(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string st = a.word("an atom style");
  a.finish();
  if (st != "atomic") a.fail("atom_style '" + st + "' is not supported: only atomic");
  sim.require_no_box(c);
}

void cmd_boundary(Simulation& sim, const io::Command& c) {
  sim.require_no_box(c);
  io::ArgCursor a(c);
  for (int d = 0; d < 3; ++d) {
    const std::string w = a.word(std::string("the ") + "xyz"[d] + " boundary (p, f, s, m or a pair like fs)");
    if (w.empty() || w.size() > 2) a.fail("bad boundary '" + w + "'");
    const char lo = w[0], hi = w.size() == 2 ? w[1] : w[0];
    for (char ch : {lo, hi}) {
      if (ch != 'p' && ch != 'f' && ch != 's' && ch != 'm')
        a.fail("bad boundary '" + w + "': use p, f, s or m");
    }
    if ((lo == 'p') != (hi == 'p')) a.fail("boundary '" + w + "': p must be on both faces");
    sim.state.box.face[d][0] = static_cast<Face>(lo);
    sim.state.box.face[d][1] = static_cast<Face>(hi);
  }
  a.finish();
}

void cmd_processors(Simulation& sim, const io::Command& c) {
  sim.require_no_box(c);
  io::ArgCursor a(c);
  std::array<int, 3> p = {0, 0, 0};
  int fixed = 1;
  for (int d = 0; d < 3; ++d) {
    const std::string what =
        std::string("the number of sub-domains along ") + "xyz"[d] + " (an integer or *)";
    if (a.peek() == "*") {
      a.word(what);
      continue;
    }
    p[d] = static_cast<int>(a.integer(what, 1, 1000000));
    fixed *= p[d];
  }
  if (!a.done())
    a.fail("only 'processors Px Py Pz' is supported (no grid, map, part, file or numa keywords)");
  // `wafermd model` reads scripts without running them (dry run, one rank): the rank count is not known.
  const int n = sim.comm.size();
  if (!sim.dry_run && (n % fixed != 0 || (p[0] && p[1] && p[2] && fixed != n)))
    a.fail("processors " + c.args[0] + " " + c.args[1] + " " + c.args[2] + " does not fit the " +
           std::to_string(n) + " MPI rank" + (n > 1 ? "s" : "") + " of this run");
  sim.processors = p;
}

void cmd_mass(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string types = a.word("an atom type (or range like 1*3)");
  const double m = a.positive("the mass (g/mol)");
  a.finish();
  int lo, hi;
  if (!io::parse_bounds(types, sim.state.ntypes, lo, hi)) {
    a.fail("bad atom type '" + types + "' (1.." + std::to_string(sim.state.ntypes) + ")");
  }
  for (int t = lo; t <= hi; ++t) sim.state.mass[t] = m;
}

void cmd_timestep(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const double dt = a.positive("the timestep (ps)");
  a.finish();
  sim.state.dt = dt;
}

void cmd_reset_timestep(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const int64_t step = a.integer("the step number", 0, 4000000000000000000LL);
  for (const auto& f : sim.fixes)
    if (f->time_dependent())
      a.fail("Cannot reset timestep with a time-dependent fix defined (fix " + f->id() + " " + f->style() +
             ", LAMMPS's rule)");
  sim.state.step = step;
  sim.state.time_lag_from = -1;  // LAMMPS's reset_timestep sets atimestep = the new step
  if (a.peek() == "time") {
    a.word("time");
    sim.state.time = a.non_negative("the time (ps)");
  }
  a.finish();
  sim.timestep_reset();  // LAMMPS: no compute is current any more
}

// run_style verlet is LAMMPS's default and wafermd's one integrator (velocity Verlet, LAMMPS's order of
// hooks): accepted as it is. rRESPA and the split styles integrate differently: refused.
void cmd_run_style(Simulation&, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string st = a.word("a run style");
  a.finish();
  if (st != "verlet")
    a.fail("run_style '" + st + "' is not supported: wafermd integrates with LAMMPS's run_style verlet");
}

// `box tilt small|large` (LAMMPS 29Sep2021): whether a triclinic box may be skewed beyond half a length.
void cmd_box(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  if (sim.state.box.defined) a.fail("Box command after simulation box is defined");
  a.choice("a box keyword", {"tilt"});
  sim.state.box.tilt_large = a.choice("small or large", {"small", "large"}) == "large";
  a.finish();
}

}  // namespace

WMD_COMMAND("box", cmd_box, kNoFlags)
WMD_COMMAND("units", cmd_units, kNoFlags)
WMD_COMMAND("run_style", cmd_run_style, kNoPhysics)
WMD_COMMAND("atom_style", cmd_atom_style, kNoFlags)
WMD_COMMAND("boundary", cmd_boundary, kNoFlags)
WMD_COMMAND("processors", cmd_processors, kNoFlags)
WMD_COMMAND("mass", cmd_mass, kNoFlags)
WMD_COMMAND("timestep", cmd_timestep, kNoFlags)
WMD_COMMAND("reset_timestep", cmd_reset_timestep, kNoFlags)

}  // namespace wmd::md
