// wafermd extension `defects every N [cutoff C] | off`: Wigner–Seitz analysis against the perfect lattice
// fitted now (md/cascade/).
#include <fmt/format.h>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_defects(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  int every = 10;
  double cutoff = -1.0;
  while (!a.done()) {
    const std::string k = a.choice("a defects keyword", {"every", "cutoff", "off"});
    if (k == "off") {
      sim.cascade.defects.reset();
      return;
    }
    if (k == "every")
      every = static_cast<int>(a.integer("the sampling interval (steps)", 1, 2000000000));
    else
      cutoff = a.positive("the cluster cutoff (Å)");
  }
  if (!sim.lattice.defined())
    a.fail("defects needs the perfect lattice: define it with 'lattice' (or system.lattice) before");
  // The reference sites are cubic cells of the basis along x, y, z (md/cascade/wigner_seitz.cpp).
  const Lattice& l = sim.lattice;
  bool cubic = l.style == "sc" || l.style == "bcc" || l.style == "fcc";
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      cubic = cubic && l.orient[r][c] == (r == c ? 1 : 0) && l.a[r][c] == (r == c ? 1.0 : 0.0);
  if (!cubic)
    a.fail("defects needs an sc, bcc or fcc lattice in the default orientation (lattice " + l.style +
           " with orient, a1-a3 or another style is not supported by the Wigner-Seitz analysis)");
  if (cutoff < 0) cutoff = ws_cluster_cutoff(sim.lattice.style, sim.lattice.scale);
  sim.cascade.defects = std::make_unique<DefectTracker>(sim.state, sim.lattice.style, sim.lattice.spacing,
                                                        sim.lattice.basis, cutoff, every, c.pos);
  if (!sim.restart_pending() && static_cast<int64_t>(sim.cascade.defects->sites()) !=
                                    sim.comm.sum(static_cast<int64_t>(sim.state.atoms.size()))) {
    sim.log.line(fmt::format("WARNING: defects: {} reference sites but {} atoms",
                             sim.cascade.defects->sites(),
                             sim.comm.sum(static_cast<int64_t>(sim.state.atoms.size()))));
  }
}

}  // namespace

WMD_COMMAND("defects", cmd_defects, kNoFlags)

}  // namespace wmd::md
