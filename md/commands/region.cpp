// `region ID STYLE args... [units lattice|box] [side in|out] [move vx vy vz] [rotate vθ Px Py Pz Rx Ry Rz]`
// and `region ID delete`. The styles are registered classes (md/styles/regions/); this command parses the
// keywords they share, as LAMMPS's Region::options does.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/region_style.hpp"

namespace wmd::md {
namespace {

void cmd_region(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a region ID");
  if (a.peek() == "delete") {
    a.word("delete");
    a.finish();
    if (!sim.regions.erase(id)) a.fail("cannot delete unknown region '" + id + "'");
    return;
  }
  const std::string style = a.word("a region style");
  const RegionStyle* rs = RegionRegistry::get().find(style);
  if (!rs)
    a.fail("region style '" + style + "' is not supported (" + RegionRegistry::get().name_list() + ")");
  if (sim.regions.count(id))
    a.fail("region ID '" + id + "' is already in use (region " + id + " delete first)");
  const size_t start = 2;
  size_t fixed = static_cast<size_t>(rs->fixed_args);
  if (rs->fixed_args < 0) {
    io::ArgCursor n(c, start);
    fixed = 1 + static_cast<size_t>(n.integer("the number of regions", 2, 1000));
  }
  if (c.args.size() < start + fixed)
    a.fail("region " + style + " needs " + std::to_string(fixed) + " arguments after the style");

  // The keywords after the style's own arguments (LAMMPS reads them first: `units` scales the rest).
  io::ArgCursor k(c, start + fixed);
  bool lattice_units = true, interior = true;
  std::string move[3];
  bool moving = false, rotating = false;
  std::string theta;
  double point[3] = {0, 0, 0}, axis[3] = {0, 0, 0};
  while (!k.done()) {
    const std::string key = k.choice("a region keyword", {"units", "side", "move", "rotate", "open"});
    if (key == "units") {
      lattice_units = k.choice("units", {"lattice", "box"}) == "lattice";
    } else if (key == "side") {
      interior = k.choice("side", {"in", "out"}) == "in";
    } else if (key == "move") {
      for (auto& m : move) {
        const std::string w = k.word("v_name or NULL for each of x, y, z");
        if (w == "NULL") continue;
        if (w.rfind("v_", 0) != 0) k.fail("region move takes v_name or NULL, got '" + w + "'");
        m = w.substr(2);
      }
      moving = true;
    } else if (key == "rotate") {
      const std::string w = k.word("v_name of the rotation angle");
      if (w.rfind("v_", 0) != 0) k.fail("region rotate takes v_name for the angle, got '" + w + "'");
      theta = w.substr(2);
      for (double& p : point) p = k.real("the rotation point");
      for (double& x : axis) x = k.real("the rotation axis");
      if (axis[0] == 0.0 && axis[1] == 0.0 && axis[2] == 0.0) k.fail("region rotate axis has zero length");
      rotating = true;
    } else {
      k.fail("region keyword 'open' only shapes the walls of fix wall/region, which wafermd does not have");
    }
  }
  if ((moving || rotating) && (style == "union" || style == "intersect"))
    k.fail("region union or intersect cannot move or rotate (move its sub-regions instead)");

  io::Variables* vars = sim.vars;
  const SourcePos pos = c.pos;
  RegionVariable eval = [vars, pos, id](const std::string& name) {
    if (!vars) fail_input(pos, "region " + id + ": variables are not available");
    return vars->value(name, pos);
  };
  const Lattice& lat = sim.lattice;
  io::ArgCursor own(c, start);
  RegionArgs ra{id,
                own,
                {lattice_units ? lat.spacing[0] : 1.0, lattice_units ? lat.spacing[1] : 1.0,
                 lattice_units ? lat.spacing[2] : 1.0},
                sim.state.box,
                interior,
                sim.regions,
                eval};
  Region r(id, style, rs->make(ra), interior);
  if (moving) r.set_move(move, eval);
  if (rotating) {
    for (int d = 0; d < 3; ++d) point[d] *= ra.scale[d];
    r.set_rotate(theta, point, axis, eval);
  }
  sim.regions[id] = r;
}

}  // namespace

WMD_COMMAND("region", cmd_region, kNoFlags)

}  // namespace wmd::md
