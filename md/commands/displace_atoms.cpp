// `displace_atoms group move|random ...`, with LAMMPS's coordinate-hashed random displacements.
#include "md/core/random_park.hpp"
#include "md/core/velocity.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_displace_atoms(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const uint32_t group = sim.group_of(a, a.word("a group ID"));
  const std::string style = a.choice("a displace style", {"move", "random"});
  double del[3];
  for (double& d : del) d = a.real("a displacement");
  int seed = 0;
  if (style == "random") seed = static_cast<int>(a.integer("the random seed", 1, 2147483646));
  bool lattice_units = true;
  while (!a.done()) {
    a.choice("a displace_atoms keyword", {"units"});
    lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
  }
  // Without a lattice command the spacings are LAMMPS's default lattice's (none 1.0).
  for (int d = 0; d < 3; ++d) del[d] *= lattice_units ? sim.lattice.spacing[d] : 1.0;
  Atoms& at = sim.state.atoms;
  RandomPark rng(seed > 0 ? seed : 1);
  for (size_t i = 0; i < at.size(); ++i) {
    if (!(at.mask[i] & group)) continue;
    if (style == "move") {
      at.x[i] += del[0], at.y[i] += del[1], at.z[i] += del[2];
    } else {
      const double coord[3] = {at.x[i], at.y[i], at.z[i]};
      rng.reset(seed, coord);
      at.x[i] += del[0] * 2.0 * (rng.uniform() - 0.5);
      at.y[i] += del[1] * 2.0 * (rng.uniform() - 0.5);
      at.z[i] += del[2] * 2.0 * (rng.uniform() - 0.5);
    }
    for (int d = 0; d < 3; ++d) {
      double* p = d == 0 ? &at.x[i] : d == 1 ? &at.y[i] : &at.z[i];
      int* im = d == 0 ? &at.ix[i] : d == 1 ? &at.iy[i] : &at.iz[i];
      if (sim.state.box.periodic(d)) wrap_periodic(*p, *im, sim.state.box.lo[d], sim.state.box.hi[d]);
    }
  }
  sim.forces_current = false;
}

}  // namespace

WMD_COMMAND("displace_atoms", cmd_displace_atoms, kNoFlags)

}  // namespace wmd::md
