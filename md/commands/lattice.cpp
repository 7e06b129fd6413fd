// `lattice style scale [origin x y z]`: the lattice create_atoms fills and `units lattice` distances use.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_lattice(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string style = a.word("a lattice style (fcc, bcc, sc or none)");
  const double scale = a.positive("the lattice constant (Å)");
  Lattice l;
  if (style == "none") {
    l.scale = scale;
    l.spacing[0] = l.spacing[1] = l.spacing[2] = scale;
  } else if (!make_lattice(style, scale, l)) {
    a.fail("lattice style '" + style + "' is not supported (fcc, bcc, sc, none)");
  }
  while (!a.done()) {
    const std::string key = a.choice("a lattice keyword", {"origin"});
    for (int d = 0; d < 3; ++d) {
      l.origin[d] = a.real("an origin component");
      if (l.origin[d] < 0.0 || l.origin[d] >= 1.0) a.fail("lattice origin components must be in [0, 1)");
    }
  }
  sim.lattice = l;
  if (!sim.dry_run && style != "none") {
    sim.log.line("Lattice spacing in x,y,z = " + std::to_string(l.spacing[0]) + " " +
                 std::to_string(l.spacing[1]) + " " + std::to_string(l.spacing[2]));
  }
}

}  // namespace

WMD_COMMAND("lattice", cmd_lattice, kNoFlags)

}  // namespace wmd::md
