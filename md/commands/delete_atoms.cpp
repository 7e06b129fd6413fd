// `delete_atoms group ID|region ID|overlap cut g1 g2|porosity region-ID fraction seed [compress yes|no]
// [mol no]`: LAMMPS's choices of atoms and, with `compress yes` (the default), its new ids 1..N — all as
// one-rank LAMMPS makes them (md/core/lammps_order.hpp), whatever the rank count.
#include <fmt/format.h>

#include "md/core/boundaries.hpp"
#include "md/core/lammps_order.hpp"
#include "md/core/point_grid.hpp"
#include "md/core/random_mars.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

/// LAMMPS's Domain::pbc() on this rank's atoms: one wrap per periodic direction, image flags updated.
void wrap_atoms(const Box& box, Atoms& at) {
  if (box.triclinic) {  // x2lamda, pbc, lamda2x
    atoms_to_lamda(box, at);
    wrap_fractional(box, at, 0);
    atoms_from_lamda(box, at);
    return;
  }
  std::vector<double>* pos[3] = {&at.x, &at.y, &at.z};
  std::vector<int>* img[3] = {&at.ix, &at.iy, &at.iz};
  for (size_t i = 0; i < at.size(); ++i)
    for (int d = 0; d < 3; ++d) {
      if (!box.periodic(d)) continue;
      double& x = (*pos[d])[i];
      if (x < box.lo[d]) x += box.prd(d), --(*img[d])[i];
      if (x >= box.hi[d]) x = std::max(x - box.prd(d), box.lo[d]), ++(*img[d])[i];
    }
}

void cmd_delete_atoms(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string style = a.choice("a delete_atoms style", {"group", "region", "overlap", "porosity"});
  Atoms& at = sim.state.atoms;
  std::vector<char> del(at.size(), 0);
  const Region* region = nullptr;
  auto find_region = [&](const std::string& rid) {
    auto it = sim.regions.find(rid);
    if (it == sim.regions.end()) a.fail("unknown region '" + rid + "'");
    it->second.prematch();
    return &it->second;
  };
  uint32_t group = 0, group2 = 0;
  double cut = 0.0, fraction = 0.0;
  int seed = 0;
  if (style == "group") {
    group = sim.group_of(a, a.word("a group ID"));
  } else if (style == "region") {
    region = find_region(a.word("a region ID"));
  } else if (style == "overlap") {
    cut = a.positive("the cutoff (Å)");
    group = sim.group_of(a, a.word("the first group ID"));
    group2 = sim.group_of(a, a.word("the second group ID"));
  } else {
    region = find_region(a.word("a region ID"));
    fraction = a.real("the fraction to delete");
    seed = static_cast<int>(a.integer("the random seed", 1, 900000000));
  }
  bool compress = true;
  while (!a.done()) {
    const std::string key = a.choice("a delete_atoms keyword", {"compress", "mol", "bond"});
    if (key == "compress") {
      compress = a.yes_no("compress");
    } else if (key == "mol") {
      if (a.yes_no("mol")) a.fail("delete_atoms mol yes needs molecules; wafermd's atom_style is atomic");
    } else {
      a.fail("delete_atoms bond needs bonds; wafermd's atom_style is atomic");
    }
  }

  if (style == "group") {
    for (size_t i = 0; i < at.size(); ++i) del[i] = (at.mask[i] & group) != 0;
  } else if (style == "region") {
    for (size_t i = 0; i < at.size(); ++i) del[i] = region->match(at.x[i], at.y[i], at.z[i]);
  } else if (style == "porosity") {
    // One Marsaglia stream over the atoms in one-rank LAMMPS's order; a draw for each atom in the region.
    const OrderedAtoms all = gather_ordered(sim.comm, at);
    RandomMars rng(seed);
    std::vector<char> gone(all.size(), 0);
    for (size_t k = 0; k < all.size(); ++k)
      if (region->match(all.x[k], all.y[k], all.z[k])) gone[k] = rng.uniform() <= fraction;
    for (size_t i = 0; i < at.size(); ++i) del[i] = gone[at.order[i]];
  } else {
    // LAMMPS needs the pair style for the neighbour list it builds; the cutoff may not exceed it.
    if (!sim.potential_complete())
      a.fail("delete_atoms overlap needs a pair style (pair_style and pair_coeff)");
    const double cutneigh = sim.tables().cutmax + sim.neighbor.skin;
    if (cut > cutneigh)
      a.fail(
          fmt::format("delete_atoms overlap cutoff {} exceeds the neighbour cutoff {} (pair cutoff + skin)",
                      cut, cutneigh));
    // In one-rank LAMMPS's order, atom i goes when a neighbour j closer than the cutoff (i in group 1, j in
    // group 2) is a real atom not yet deleted, or a periodic image unless the pair is a candidate both ways
    // and id(i) > id(j).
    wrap_atoms(sim.state.box, at);
    const OrderedAtoms all = gather_ordered(sim.comm, at);
    PointGrid grid(sim.state.box, cut);
    for (size_t k = 0; k < all.size(); ++k) grid.add(static_cast<int>(k), all.x[k], all.y[k], all.z[k]);
    std::vector<char> gone(all.size(), 0);
    for (size_t i = 0; i < all.size(); ++i) {
      if (!(all.mask[i] & group)) continue;
      bool go = false;
      grid.visit(all.x[i], all.y[i], all.z[i], [&](int j, double, bool shifted) {
        if (go || (!shifted && static_cast<size_t>(j) == i)) return;
        if (!(all.mask[j] & group2)) return;
        if (!shifted) {
          if (gone[j]) return;
        } else if ((all.mask[i] & group2) && (all.mask[j] & group)) {
          if (all.id[i] > all.id[j]) return;
        }
        go = true;
      });
      gone[i] = go;
    }
    for (size_t i = 0; i < at.size(); ++i) del[i] = gone[at.order[i]];
  }
  const int64_t before = sim.natoms();
  const int64_t n = delete_in_lammps_order(sim.comm, at, del);
  if (compress) compress_ids(at);
  ++sim.state.edits;
  sim.forces_current = false;
  if (!sim.dry_run) sim.log.line(fmt::format("Deleted {} atoms, new total = {}", n, before - n));
}

}  // namespace

WMD_COMMAND("delete_atoms", cmd_delete_atoms, kNoFlags)

}  // namespace wmd::md
