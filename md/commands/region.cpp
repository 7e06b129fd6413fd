// `region ID block xlo xhi ylo yhi zlo zhi [units lattice|box] [side in|out]`.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_region(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  Region r;
  r.id = a.word("a region ID");
  a.choice("a region style", {"block"});
  std::string bounds[6];
  for (auto& b : bounds) b = a.word("six bounds xlo xhi ylo yhi zlo zhi");
  bool lattice_units = true;
  while (!a.done()) {
    const std::string key = a.choice("a region keyword", {"units", "side"});
    if (key == "units")
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
    else
      r.inside = a.choice("side", {"in", "out"}) == "in";
  }
  for (int k = 0; k < 6; ++k) {
    const int d = k / 2;
    const double scale = lattice_units ? sim.lattice.spacing[d] : 1.0;
    const std::string& b = bounds[k];
    double v;
    if (b == "INF" || b == "-INF") {
      v = (b[0] == '-' ? -1.0 : 1.0) * 1.0e300;
      if ((k % 2 == 0) != (b[0] == '-')) a.fail("region bound '" + b + "' is on the wrong side");
    } else if (b == "EDGE") {
      if (!sim.state.box.defined) a.fail("region bound EDGE needs an existing box");
      v = k % 2 == 0 ? sim.state.box.lo[d] : sim.state.box.hi[d];
    } else {
      if (!io::parse_double(b, v)) a.fail("region bound '" + b + "' is not a number");
      v *= scale;
    }
    (k % 2 == 0 ? r.lo : r.hi)[d] = v;
  }
  for (int d = 0; d < 3; ++d) {
    if (!(r.hi[d] > r.lo[d]))
      a.fail(std::string("region ") + r.id + ": " + "xyz"[d] + "hi must exceed " + "xyz"[d] + "lo");
  }
  sim.regions[r.id] = r;
}

}  // namespace

WMD_COMMAND("region", cmd_region, kNoFlags)

}  // namespace wmd::md
