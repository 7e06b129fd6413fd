// `displace_atoms group move|ramp|random|rotate ... [units lattice|box]`, as LAMMPS's DisplaceAtoms:
// move dx dy dz (each a number or v_name, equal- or atom-style, applied x, then y, then z, so a later
// component's variable sees the earlier ones moved), ramp, random (coordinate-hashed draws, independent of
// the ranks) and rotate (about an axis through a point, from unwrapped coordinates); then every atom is
// remapped into the periodic box and shrink-wrapped faces are fitted (LAMMPS's remap and reset_box).
#include <cmath>

#include "md/core/boundaries.hpp"
#include "md/core/random_park.hpp"
#include "md/core/velocity.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

// A `move` component: a number, or v_name of an equal- or atom-style variable.
struct MoveArg {
  std::string word;
  double value = 0.0;
  std::string var;  // empty: a number
};

MoveArg move_arg(io::ArgCursor& a) {
  MoveArg m;
  m.word = a.word("a displacement (a number or v_name)");
  if (m.word.rfind("v_", 0) == 0)
    m.var = m.word.substr(2);
  else if (!io::parse_double(m.word, m.value))
    a.fail("displace_atoms move expected a number or v_name, got '" + m.word + "'");
  return m;
}

int dim_arg(io::ArgCursor& a, const std::string& what) {
  return a.choice(what, {"x", "y", "z"})[0] - 'x';
}

// LAMMPS's DisplaceAtoms::move for one dimension: the variable is evaluated now (after the dimensions before
// it moved), and its value is scaled like a number.
void move_dim(Simulation& sim, const io::Command& c, const io::ArgCursor& a, uint32_t group, int d,
              const MoveArg& m, double scale) {
  Atoms& at = sim.state.atoms;
  std::vector<double>& x = d == 0 ? at.x : d == 1 ? at.y : at.z;
  if (m.var.empty()) {
    const double delta = scale * m.value;
    for (size_t i = 0; i < at.size(); ++i)
      if (at.mask[i] & group) x[i] += delta;
    return;
  }
  if (!sim.vars || !sim.vars->defined(m.var)) a.fail("displace_atoms: variable " + m.var + " does not exist");
  if (sim.vars->equal_style(m.var)) {
    const double delta = scale * sim.vars->value(m.var, c.pos);
    for (size_t i = 0; i < at.size(); ++i)
      if (at.mask[i] & group) x[i] += delta;
  } else if (sim.has_atom_variable(m.var)) {
    std::vector<double> values;
    sim.atom_variable(m.var, c.pos, values);
    for (size_t i = 0; i < at.size(); ++i)
      if (at.mask[i] & group) x[i] += scale * values[i];
  } else {
    a.fail("displace_atoms: variable " + m.var + " is " + sim.vars->style_of(m.var) +
           "-style (it must be equal- or atom-style)");
  }
}

void cmd_displace_atoms(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const uint32_t group = sim.group_of(a, a.word("a group ID"));
  const std::string style = a.choice("a displace style", {"move", "ramp", "random", "rotate"});
  // The style's own arguments, then `units` (LAMMPS reads the keywords first: the scale applies to all).
  MoveArg move[3];
  int ramp_dim = 0, coord_dim = 0;
  double ramp[4] = {0, 0, 0, 0};  // d_lo d_hi coord_lo coord_hi
  double del[3] = {0, 0, 0};
  int seed = 1;
  double point[3] = {0, 0, 0}, axis[3] = {0, 0, 0}, theta = 0.0;
  if (style == "move") {
    for (MoveArg& m : move) m = move_arg(a);
  } else if (style == "ramp") {
    ramp_dim = dim_arg(a, "the displaced dimension (x, y or z)");
    ramp[0] = a.real("the displacement at the low end"), ramp[1] = a.real("the displacement at the high end");
    coord_dim = dim_arg(a, "the ramp's dimension (x, y or z)");
    ramp[2] = a.real("the ramp's low coordinate"), ramp[3] = a.real("the ramp's high coordinate");
  } else if (style == "random") {
    for (double& d : del) d = a.real("a displacement");
    seed = static_cast<int>(a.integer("the random seed", 1, 2147483646));
  } else {
    for (double& p : point) p = a.real("the rotation point");
    for (double& r : axis) r = a.real("the rotation axis");
    theta = a.real("the rotation angle (degrees)");
  }
  bool lattice_units = true;
  while (!a.done()) {
    a.choice("a displace_atoms keyword", {"units"});
    lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
  }
  // Without a lattice command the spacings are LAMMPS's default lattice's (none 1.0).
  double scale[3];
  for (int d = 0; d < 3; ++d) scale[d] = lattice_units ? sim.lattice.spacing[d] : 1.0;
  Atoms& at = sim.state.atoms;
  const Box& box = sim.state.box;

  if (style == "move") {
    for (int d = 0; d < 3; ++d) move_dim(sim, c, a, group, d, move[d], scale[d]);
  } else if (style == "ramp") {
    const double d_lo = scale[ramp_dim] * ramp[0], d_hi = scale[ramp_dim] * ramp[1];
    const double c_lo = scale[coord_dim] * ramp[2], c_hi = scale[coord_dim] * ramp[3];
    std::vector<double>& x = ramp_dim == 0 ? at.x : ramp_dim == 1 ? at.y : at.z;
    const std::vector<double>& coord = coord_dim == 0 ? at.x : coord_dim == 1 ? at.y : at.z;
    for (size_t i = 0; i < at.size(); ++i) {
      if (!(at.mask[i] & group)) continue;
      double fraction = (coord[i] - c_lo) / (c_hi - c_lo);
      fraction = std::min(std::max(fraction, 0.0), 1.0);
      x[i] += d_lo + fraction * (d_hi - d_lo);
    }
  } else if (style == "random") {
    for (int d = 0; d < 3; ++d) del[d] *= scale[d];
    RandomPark rng(seed);
    for (size_t i = 0; i < at.size(); ++i) {
      if (!(at.mask[i] & group)) continue;
      const double coord[3] = {at.x[i], at.y[i], at.z[i]};
      rng.reset(seed, coord);
      at.x[i] += del[0] * 2.0 * (rng.uniform() - 0.5);
      at.y[i] += del[1] * 2.0 * (rng.uniform() - 0.5);
      at.z[i] += del[2] * 2.0 * (rng.uniform() - 0.5);
    }
  } else {
    // Right-hand rotation by θ about the line through P along R: X = P + C + A cos θ + B sin θ with D = X −
    // P, C = (D·R̂)R̂, A = D − C, B = R̂ × A; atoms are unwrapped first and their images start again from 0.
    for (int d = 0; d < 3; ++d) point[d] *= scale[d];
    const double len = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (len == 0.0) a.fail("displace_atoms rotate: the rotation axis has zero length");
    const double r[3] = {axis[0] / len, axis[1] / len, axis[2] / len};
    const double angle = M_PI * theta / 180.0;
    const double cosine = std::cos(angle), sine = std::sin(angle);
    for (size_t i = 0; i < at.size(); ++i) {
      if (!(at.mask[i] & group)) continue;
      const double x[3] = {at.x[i], at.y[i], at.z[i]};
      double u[3];
      box.unwrap(x, at.ix[i], at.iy[i], at.iz[i], u);  // LAMMPS's unmap (orthogonal: x + image·L)
      at.ix[i] = at.iy[i] = at.iz[i] = 0;
      const double dd[3] = {u[0] - point[0], u[1] - point[1], u[2] - point[2]};
      const double ddotr = dd[0] * r[0] + dd[1] * r[1] + dd[2] * r[2];
      const double cc[3] = {ddotr * r[0], ddotr * r[1], ddotr * r[2]};
      const double aa[3] = {dd[0] - cc[0], dd[1] - cc[1], dd[2] - cc[2]};
      const double bb[3] = {r[1] * aa[2] - r[2] * aa[1], r[2] * aa[0] - r[0] * aa[2],
                            r[0] * aa[1] - r[1] * aa[0]};
      at.x[i] = point[0] + cc[0] + (aa[0] * cosine + bb[0] * sine);
      at.y[i] = point[1] + cc[1] + (aa[1] * cosine + bb[1] * sine);
      at.z[i] = point[2] + cc[2] + (aa[2] * cosine + bb[2] * sine);
    }
  }

  // LAMMPS's remap of every atom (not only the group's) into the periodic box — its while loops, one period
  // at a time (a triclinic box through fractional coordinates) — then reset_box, which on a triclinic box
  // takes the atoms through fractional coordinates once more, as LAMMPS's migration does.
  for (size_t i = 0; i < at.size(); ++i) {
    double x[3] = {at.x[i], at.y[i], at.z[i]};
    int image[3] = {at.ix[i], at.iy[i], at.iz[i]};
    for (int d = 0; d < 3; ++d)
      if (box.periodic(d) && !(point_widths_outside(box, x, d) <= kMaxRemapWidths))
        a.fail("displace_atoms moves an atom more than 1e6 box widths: it cannot be wrapped back");
    remap_point(box, x, image);
    at.x[i] = x[0], at.y[i] = x[1], at.z[i] = x[2];
    at.ix[i] = image[0], at.iy[i] = image[1], at.iz[i] = image[2];
  }
  wrap_and_fit_box(sim.state, sim.comm);
  ++sim.state.edits;  // positions changed: the mesh re-maps
  sim.forces_current = false;
}

}  // namespace

WMD_COMMAND("displace_atoms", cmd_displace_atoms, kNoFlags)

}  // namespace wmd::md
