// `lattice style scale [origin x y z] [orient x|y|z i j k] [spacing x y z] [a1|a2|a3 x y z] [basis x y z]`:
// the lattice create_atoms fills and `units lattice` distances use (LAMMPS's Lattice, its arithmetic
// included).
#include <cstdio>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_lattice(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string style = a.word("a lattice style (sc, bcc, fcc, hcp, diamond, custom or none)");
  const double scale = a.positive("the lattice constant (Å)");
  Lattice l;
  if (style == "none") {
    a.finish();
    l.scale = scale;
    l.spacing[0] = l.spacing[1] = l.spacing[2] = scale;
    sim.lattice = l;
    return;
  }
  if (style == "sq" || style == "sq2" || style == "hex")
    a.fail("lattice style " + style + " is two-dimensional; wafermd simulates three dimensions");
  if (!lattice_style_basis(style, l))
    a.fail("lattice style '" + style + "' is not supported (sc, bcc, fcc, hcp, diamond, custom, none)");
  l.scale = scale;
  bool user_spacing = false;
  while (!a.done()) {
    const std::string key =
        a.choice("a lattice keyword", {"origin", "orient", "spacing", "a1", "a2", "a3", "basis"});
    if (key == "origin") {
      for (double& o : l.origin) {
        o = a.real("an origin component");
        if (o < 0.0 || o >= 1.0) a.fail("lattice origin components must be in [0, 1)");
      }
    } else if (key == "orient") {
      const std::string dim = a.choice("the orient direction", {"x", "y", "z"});
      for (int& v : l.orient[dim[0] - 'x'])
        v = static_cast<int>(a.integer("an orient index", -1000000, 1000000));
    } else if (key == "spacing") {
      user_spacing = true;
      for (double& s : l.spacing) s = a.real("a lattice spacing (in units of the lattice constant)");
    } else if (key == "basis") {
      if (style != "custom") a.fail("lattice keyword basis needs style custom");
      std::array<double, 3> b;
      for (double& v : b) {
        v = a.real("a basis coordinate");
        if (v < 0.0 || v >= 1.0) a.fail("lattice basis coordinates must be in [0, 1)");
      }
      l.basis.push_back(b);
    } else {
      if (style != "custom") a.fail("lattice keyword " + key + " needs style custom");
      for (double& v : l.a[key[1] - '1']) v = a.real("a primitive vector component");
    }
  }
  if (l.basis.empty()) a.fail("lattice custom needs at least one basis atom (basis x y z)");
  if (user_spacing && (l.spacing[0] <= 0.0 || l.spacing[1] <= 0.0 || l.spacing[2] <= 0.0))
    a.fail("lattice spacings must be > 0");
  const std::string problem = finish_lattice(l, user_spacing);
  if (!problem.empty()) a.fail(problem);
  sim.lattice = l;
  if (!sim.dry_run) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "Lattice spacing in x,y,z = %#.8g %#.8g %#.8g", l.spacing[0], l.spacing[1],
                  l.spacing[2]);
    sim.log.line(buf);
  }
}

}  // namespace

WMD_COMMAND("lattice", cmd_lattice, kNoFlags)

}  // namespace wmd::md
