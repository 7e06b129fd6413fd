// `create_atoms type box|region ID|single x y z|random N seed region-ID|NULL [basis m type]... [units
// lattice|box] [remap yes|no] [overlap D] [maxtry N]`: lattice points inside the box or a region, one atom,
// or N atoms at LAMMPS's random positions — with LAMMPS's one-rank ids and coordinates on any rank count.
#include <fmt/format.h>

#include <vector>

#include "base/memory_budget.hpp"
#include "md/core/lammps_order.hpp"
#include "md/core/point_grid.hpp"
#include "md/core/random_park.hpp"
#include "md/core/velocity.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_create_atoms(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const int type = static_cast<int>(a.integer("an atom type", 1, sim.state.ntypes));
  const std::string style = a.choice("a create_atoms style", {"box", "region", "single", "random"});
  const Region* region = nullptr;
  auto find_region = [&](const std::string& rid) {
    auto it = sim.regions.find(rid);
    if (it == sim.regions.end()) a.fail("unknown region '" + rid + "'");
    it->second.prematch();
    return &it->second;
  };
  double xone[3] = {0, 0, 0};
  long long nrandom = 0;
  int seed = 0;
  if (style == "region") {
    region = find_region(a.word("a region ID"));
  } else if (style == "single") {
    for (double& x : xone) x = a.real("a coordinate");
  } else if (style == "random") {
    nrandom = a.integer("the number of atoms", 0, 2000000000LL);
    seed = static_cast<int>(a.integer("the random seed", 1, 2147483646));
    const std::string rid = a.word("a region ID or NULL");
    if (rid != "NULL") region = find_region(rid);
  }
  std::vector<int> basis_type(sim.lattice.basis.size(), type);
  bool lattice_units = true, remap = false;
  double overlap = 0.0;
  // Newer LAMMPS's maxtry (Debian's 2021 lmp has neither keyword and tries until the region is hit): with
  // overlap or maxtry given, every try counts (a region miss too), 1000 by default, and an atom that used
  // them all is skipped.
  long long maxtry = 1000;
  bool bounded_tries = false;
  while (!a.done()) {
    const std::string key = a.word("a create_atoms keyword (basis, units, remap, overlap, maxtry)");
    if (key == "basis") {
      if (basis_type.empty()) a.fail("create_atoms basis needs a lattice with basis atoms");
      const int m =
          static_cast<int>(a.integer("a basis atom index", 1, static_cast<long long>(basis_type.size())));
      basis_type[m - 1] = static_cast<int>(a.integer("an atom type", 1, sim.state.ntypes));
    } else if (key == "units") {
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
    } else if (key == "remap") {
      remap = a.yes_no("remap");
    } else if (key == "overlap") {
      if (style != "random") a.fail("create_atoms keyword overlap applies to style random only");
      overlap = a.positive("the overlap distance (Å)");
      bounded_tries = true;
    } else if (key == "maxtry") {
      if (style != "random") a.fail("create_atoms keyword maxtry applies to style random only");
      maxtry = a.integer("the number of tries", 1, 1000000000LL);
      bounded_tries = true;
    } else if (key == "mol" || key == "var" || key == "set" || key == "rotate" || key == "subset") {
      a.fail("create_atoms keyword '" + key + "' is not supported (basis, units, remap, overlap, maxtry)");
    } else {
      a.fail("unknown create_atoms keyword '" + key + "' (basis, units, remap, overlap, maxtry)");
    }
  }
  if ((style == "box" || style == "region") && !sim.lattice.defined())
    a.fail("create_atoms " + style + " needs a lattice defined first (lattice command)");
  if (style == "single" && lattice_units)
    for (int d = 0; d < 3; ++d) xone[d] *= sim.lattice.spacing[d];

  // Every rank runs the one-rank generation and keeps the atoms of its sub-domain: ids, coordinates and
  // LAMMPS's array order are one-rank LAMMPS's whatever the rank count.
  const Box& box = sim.state.box;
  const int64_t first_id = sim.comm.max(sim.state.atoms.max_id()) + 1;
  const int64_t first_order = sim.natoms();
  auto mine = [&sim](double x, double y, double z) { return sim.decomp.owns(sim.state.box, x, y, z); };
  int64_t n = 0;
  std::string note;
  if (sim.restart_pending()) {
    n = 0;  // a restart's atoms come from its checkpoint
  } else if (style == "box" || style == "region") {
    n = create_lattice_atoms(sim.state, sim.lattice, basis_type, region, first_id, mine, first_order, c.pos);
  } else if (style == "single") {
    if (remap) {
      for (int d = 0; d < 3; ++d)
        if (box.periodic(d) && !(point_widths_outside(box, xone, d) <= kMaxRemapWidths))
          a.fail(
              fmt::format("create_atoms single: the point is more than {:.0e} box widths outside the box "
                          "along {}; remap cannot wrap it back",
                          kMaxRemapWidths, "xyz"[d]));
      remap_point(box, xone);
    }
    if (inside_box(box, xone)) {
      if (mine(xone[0], xone[1], xone[2]))
        sim.state.atoms.add(first_id, type, xone[0], xone[1], xone[2], first_order);
      n = 1;
    }
  } else {
    memory::check_allocation("creating " + std::to_string(nrandom) + " random atoms", nrandom * kAtomBytes,
                             c.pos);
    // LAMMPS's random positions: one Park–Miller stream (after 30 discarded draws), x, y, z per try, inside
    // the box (narrowed to the region's bounding box), until the point is in the region.
    double lo[3], hi[3];
    // A triclinic box: its bounding box, points outside the box itself rejected like the region's misses.
    for (int d = 0; d < 3; ++d) lo[d] = box.bound_lo(d), hi[d] = box.bound_hi(d);
    double rlo[3], rhi[3];
    if (region && region->extent(rlo, rhi)) {
      for (int d = 0; d < 3; ++d) lo[d] = std::max(lo[d], rlo[d]), hi[d] = std::min(hi[d], rhi[d]);
    }
    if (lo[0] > hi[0] || lo[1] > hi[1] || lo[2] > hi[2])
      a.fail("create_atoms random: region " + region->id + " does not overlap the box");
    std::unique_ptr<PointGrid> grid;
    int next_point = 0;
    if (overlap > 0.0) {
      // Existing atoms of every rank, and each atom inserted here, keep new atoms at least `overlap` away.
      grid = std::make_unique<PointGrid>(box, overlap);
      const OrderedAtoms all = gather_ordered(sim.comm, sim.state.atoms);
      for (size_t k = 0; k < all.size(); ++k) grid->add(next_point++, all.x[k], all.y[k], all.z[k]);
    }
    RandomPark rng(seed);
    for (int k = 0; k < 30; ++k) rng.uniform();  // LAMMPS warms its generator up 30 draws
    int64_t failed = 0;
    // LAMMPS tries maxtry points for every atom however many found no place before, so an overlap the
    // region cannot hold (N atoms, maxtry each) would run for hours: 2·10^7 rejected points in all (a few
    // seconds, on every rank) end it.
    constexpr long long kMaxRejected = 20000000LL;
    long long rejected = 0;
    for (long long i = 0; i < nrandom; ++i) {
      double x[3];
      bool ok = false;
      for (long long tries = 0;; ++tries) {
        if (bounded_tries && tries >= maxtry) break;
        if (!bounded_tries && tries >= kMaxRejected)
          a.fail("create_atoms random: 2*10^7 random points missed region " + region->id);
        for (int d = 0; d < 3; ++d) x[d] = lo[d] + rng.uniform() * (hi[d] - lo[d]);
        if ((region && !region->match(x[0], x[1], x[2])) || (box.triclinic && !inside_box(box, x)) ||
            (grid && grid->any_within(x[0], x[1], x[2]))) {
          if (++rejected >= kMaxRejected)
            a.fail(fmt::format(
                "create_atoms random: 2*10^7 random points found no place (inserted {} of {} atoms, {} gave "
                "up after maxtry {}); the region cannot hold them at this overlap",
                n, nrandom, failed, maxtry));
          continue;
        }
        ok = true;
        break;
      }
      if (!ok) {
        ++failed;
        continue;
      }
      if (inside_box(box, x)) {
        if (mine(x[0], x[1], x[2]))
          sim.state.atoms.add(first_id + n, type, x[0], x[1], x[2], first_order + n);
        if (grid) grid->add(next_point++, x[0], x[1], x[2]);
        ++n;
      }
    }
    if (failed > 0)
      note = fmt::format("WARNING: Only inserted {} particles out of {} ({} found no place in {} tries)", n,
                         nrandom, failed, maxtry);
  }
  ++sim.state.edits;
  sim.forces_current = false;
  if (!sim.dry_run) {
    if (!note.empty()) sim.log.line(note);
    sim.log.line("Created " + std::to_string(n) + " atoms");
  }
}

}  // namespace

WMD_COMMAND("create_atoms", cmd_create_atoms, kNoFlags)

}  // namespace wmd::md
