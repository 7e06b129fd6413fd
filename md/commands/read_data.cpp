// `read_data file`: box, masses, atoms (and velocities) from a LAMMPS data file; each rank keeps its own.
#include <cmath>

#include "io/lammps_data.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_read_data(Simulation& sim, const io::Command& c) {
  sim.require_no_box(c);
  io::ArgCursor a(c);
  const std::string path = a.word("a data file name");
  a.finish();
  const io::DataFile d = io::read_lammps_data(sim.dry_readable(path), c.pos);
  for (int k = 0; k < 3; ++k) {
    if (!box_interval_ok(d.lo[k], d.hi[k]))
      fail_input(c.pos, "data file '" + path + "' has a box along " + std::string(1, "xyz"[k]) +
                            " that is not a finite interval lo < hi within ±1e20");
    sim.state.box.lo[k] = sim.state.box.min_lo[k] = d.lo[k];
    sim.state.box.hi[k] = sim.state.box.min_hi[k] = d.hi[k];
  }
  sim.state.box.triclinic = d.triclinic;
  sim.state.box.xy = d.xy, sim.state.box.xz = d.xz, sim.state.box.yz = d.yz;
  const std::string bad = triclinic_box_problem(sim.state.box);
  if (!bad.empty()) fail_input(c.pos, "data file '" + path + "': " + bad);
  sim.state.box.defined = true;
  sim.state.ntypes = d.ntypes;
  sim.state.mass = d.mass;
  sim.set_decomposition(c);
  // Every rank reads the file and keeps the atoms of its sub-domain.
  for (size_t i = 0; i < (sim.restart_pending() ? 0 : d.id.size());
       ++i) {  // restart: atoms from the checkpoint
    if (!sim.decomp.owns(sim.state.box, d.x[i], d.y[i], d.z[i])) continue;
    // LAMMPS keeps the file's order on one rank.
    sim.state.atoms.add(d.id[i], d.type[i], d.x[i], d.y[i], d.z[i], static_cast<int64_t>(i));
    sim.state.atoms.ix.back() = d.ix[i], sim.state.atoms.iy.back() = d.iy[i],
    sim.state.atoms.iz.back() = d.iz[i];
    if (d.has_velocities)
      sim.state.atoms.vx.back() = d.vx[i], sim.state.atoms.vy.back() = d.vy[i],
      sim.state.atoms.vz.back() = d.vz[i];
  }
  sim.state.step = 0;
  sim.forces_current = false;
  if (!sim.dry_run) sim.log.line("Reading data file ...\n  " + std::to_string(d.id.size()) + " atoms");
}

}  // namespace

WMD_COMMAND("read_data", cmd_read_data, kNoFlags)

}  // namespace wmd::md
