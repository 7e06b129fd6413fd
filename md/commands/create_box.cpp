// `create_box N region-ID`: the box (orthogonal, or triclinic from a prism region) and the number of atom
// types; chooses the MPI grid.
#include <cmath>
#include <cstdio>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_create_box(Simulation& sim, const io::Command& c) {
  sim.require_no_box(c);
  io::ArgCursor a(c);
  const int ntypes = static_cast<int>(a.integer("the number of atom types", 1, 1000));
  const std::string rid = a.word("a region ID");
  a.finish();
  auto it = sim.regions.find(rid);
  if (it == sim.regions.end()) a.fail("unknown region '" + rid + "'");
  // LAMMPS takes the region's bounding box (any style that has one, side in).
  const Region& r = it->second;
  if (!r.interior()) a.fail("create_box needs a region with side in");
  double lo[3], hi[3], tilt[3] = {0.0, 0.0, 0.0};
  // LAMMPS makes a triclinic box of a prism region: its corner bounds and tilts, even zero ones.
  const bool triclinic = r.defined() && r.shape().prism_bounds(lo, hi, tilt);
  if (!triclinic && !r.extent(lo, hi))
    a.fail("create_box needs a region with a bounding box (region " + rid + " is a " + r.style +
           " without one)");
  for (int d = 0; d < 3; ++d) {
    if (!(std::fabs(lo[d]) < kMaxBoxCoordinate && std::fabs(hi[d]) < kMaxBoxCoordinate))
      a.fail("create_box needs a finite region (within ±1e20)");
    if (!box_interval_ok(lo[d], hi[d]))
      a.fail(std::string("create_box needs a region with ") + "xyz"[d] + "hi > " + "xyz"[d] + "lo");
    sim.state.box.lo[d] = sim.state.box.min_lo[d] = lo[d];
    sim.state.box.hi[d] = sim.state.box.min_hi[d] = hi[d];
  }
  Box& box = sim.state.box;
  box.triclinic = triclinic;
  box.xy = tilt[0], box.xz = tilt[1], box.yz = tilt[2];
  const std::string bad = triclinic_box_problem(box);
  if (!bad.empty()) a.fail("create_box: " + bad);
  sim.state.box.defined = true;
  sim.state.ntypes = ntypes;
  sim.state.mass.assign(ntypes + 1, 0.0);
  if (!sim.dry_run) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "Created %s box = (%.7g %.7g %.7g) to (%.7g %.7g %.7g)",
                  triclinic ? "triclinic" : "orthogonal", box.lo[0], box.lo[1], box.lo[2], box.hi[0],
                  box.hi[1], box.hi[2]);
    sim.log.line(buf);
    if (triclinic) {
      std::snprintf(buf, sizeof buf, "  with tilt factors (%.7g %.7g %.7g)", box.xy, box.xz, box.yz);
      sim.log.line(buf);
    }
  }
  // LAMMPS's set_initial_box: shrink-wrapped ('s') faces start 0.01 % of the box beyond the region, so that
  // lattice points on them are created.
  Box& b = sim.state.box;
  for (int d = 0; d < 3; ++d) {
    const double small = 1.0e-4 * (b.hi[d] - b.lo[d]);
    if (b.face[d][0] == Face::shrink) b.lo[d] -= small;
    if (b.face[d][1] == Face::shrink) b.hi[d] += small;
  }
  sim.set_decomposition(c);
}

}  // namespace

WMD_COMMAND("create_box", cmd_create_box, kNoFlags)

}  // namespace wmd::md
