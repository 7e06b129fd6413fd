// fix indent K sphere x y z R | cylinder dim c1 c2 R | plane dim pos lo|hi [side in|out] [units lattice|box],
// as LAMMPS fix indent: a repulsive indenter pushes the group's atoms with F(r) = −K (r − R)² (r < R for
// side out, the default; r > R for side in; a plane pushes the atoms on its lo or hi side), after the forces
// of each step, at the set-up and while minimising. Any coordinate or radius may be an equal-style variable
// v_name, evaluated at each step (and not scaled by the lattice, as in LAMMPS); the centre is wrapped into
// the periodic box and distances use the minimum image. Scalar: the energy K/3 (R − r)³ summed (fix_modify
// energy yes adds it to pe); vector: the force on the indenter (extensive).
#include <cmath>

#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

enum class Shape { sphere, cylinder, plane };

// A coordinate or radius: a number, or an equal-style variable read at each step.
struct Value {
  double number = 0.0;
  std::string var;  // without the v_ prefix; empty: the number
  double get(FixContext& c, const SourcePos& at) const {
    if (var.empty()) return number;
    if (!c.styles) fail_input(at, "fix indent: variable " + var + " cannot be evaluated here");
    if (!c.styles->has_variable(var))
      fail_input(at, "fix indent: variable " + var + " does not exist or is not equal-style (LAMMPS)");
    return c.styles->variable(var);
  }
};

struct IndentSpec {
  Shape shape = Shape::sphere;
  double k = 0.0;
  Value c[3], r, plane;     // centre (sphere) or axis (cylinder, dim's entry unused); plane position
  int dim = 2;              // cylinder axis or plane normal
  double plane_side = 1.0;  // lo → −1, hi → +1
  bool outside = true;      // side out (default)
};

class FixIndent : public Fix {
 public:
  FixIndent(const FixArgs& f, const IndentSpec& p) : Fix(f.id, f.style, f.group), p_(p), at_(f.a.pos()) {}
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  bool has_global_energy() const override { return true; }
  OutputShape shape() const override { return {true, 3, -1, true}; }

  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
    tally_.start(c.comm, 4);  // energy, force on the indenter x y z
    const bool variables = !p_.c[0].var.empty() || !p_.c[1].var.empty() || !p_.c[2].var.empty() ||
                           !p_.r.var.empty() || !p_.plane.var.empty();
    if (variables && c.styles) c.styles->clearstep_computes();  // fresh computes, as LAMMPS
    if (p_.shape == Shape::plane)
      push_plane(c);
    else
      push_round(c);
    tally_.finish();
  }
  bool scalar(double& v) const override {
    v = total(0);
    return true;
  }
  double vector_value(int i) const override { return i >= 0 && i < 3 ? total(i + 1) : 0.0; }

 private:
  void push_round(FixContext& c) {
    const Box& box = c.s.box;
    double ctr[3];
    for (int d = 0; d < 3; ++d) {
      // A cylinder's axis coordinate only has to lie near the box for the wrap (it is not used).
      ctr[d] = p_.shape == Shape::cylinder && d == p_.dim ? box.lo[d] : p_.c[d].get(c, at_);
      if (box.periodic(d) && !box.triclinic) {
        int image = 0;
        wrap_periodic(ctr[d], image, box.lo[d], box.hi[d]);
      }
    }
    if (box.triclinic) remap_point(box, ctr);  // LAMMPS's Domain::remap, through fractional coordinates
    const double radius = p_.r.get(c, at_);
    const double k = p_.k, k3 = p_.k / 3.0;
    Atoms& a = c.s.atoms;
    const double* x[3] = {a.x.data(), a.y.data(), a.z.data()};
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      double del[3];
      for (int d = 0; d < 3; ++d) {
        del[d] = p_.shape == Shape::cylinder && d == p_.dim ? 0.0 : x[d][i] - ctr[d];
        if (box.periodic(d) && !box.triclinic && std::fabs(del[d]) > 0.5 * box.prd(d))  // minimum_image
          del[d] += del[d] < 0.0 ? box.prd(d) : -box.prd(d);
      }
      // A triclinic box: LAMMPS's minimum_image shifts along the edge vectors, so a cylinder's axis
      // component may take a tilt (LAMMPS keeps it in r).
      if (box.triclinic) box.minimum_image(del[0], del[1], del[2]);
      const double r = std::sqrt(del[0] * del[0] + del[1] * del[1] + del[2] * del[2]);
      const double dr = p_.outside ? r - radius : radius - r;
      if (dr >= 0.0) continue;
      const double fmag = p_.outside ? k * dr * dr : -k * dr * dr;
      const double f[3] = {del[0] * fmag / r, del[1] * fmag / r, del[2] * fmag / r};
      a.fx[i] += f[0], a.fy[i] += f[1], a.fz[i] += f[2];
      tally_.add(0, -(k3 * dr * dr * dr));
      for (int d = 0; d < 3; ++d) tally_.add(d + 1, -f[d]);
    }
  }
  void push_plane(FixContext& c) {
    const double plane = p_.plane.get(c, at_);
    const double k = p_.k, k3 = p_.k / 3.0, side = p_.plane_side;
    Atoms& a = c.s.atoms;
    const double* x = p_.dim == 0 ? a.x.data() : p_.dim == 1 ? a.y.data() : a.z.data();
    double* f = p_.dim == 0 ? a.fx.data() : p_.dim == 1 ? a.fy.data() : a.fz.data();
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      const double dr = side * (plane - x[i]);
      if (dr >= 0.0) continue;
      const double fatom = -side * k * dr * dr;
      f[i] += fatom;
      tally_.add(0, -(k3 * dr * dr * dr));
      tally_.add(p_.dim + 1, -fatom);
    }
  }
  // Summed over ranks when first asked after a step (LAMMPS's indenter_flag): collective.
  double total(int k) const { return tally_.total(k); }

  IndentSpec p_;
  SourcePos at_;
  StepTally tally_;  // energy, force on the indenter x y z
};

Value value_arg(const FixArgs& f, const std::string& what) {
  Value v;
  const std::string w = f.a.peek();
  if (w.rfind("v_", 0) == 0) {
    f.a.word(what);
    v.var = w.substr(2);
  } else {
    v.number = f.a.real(what + " (Å) or v_name");
  }
  return v;
}

int dim_arg(const FixArgs& f, const std::string& what) {
  const std::string d = f.a.choice(what, {"x", "y", "z"});
  return d[0] - 'x';
}

std::unique_ptr<Fix> make(const FixArgs& f) {
  IndentSpec p;
  p.k = f.a.real("the force constant K (eV/Å³)");
  bool have_shape = false, lattice_units = true;
  static const char* axis[3] = {"x", "y", "z"};
  while (!f.a.done()) {
    const std::string key =
        f.a.choice("a fix indent keyword", {"sphere", "cylinder", "plane", "side", "units"});
    if (key == "sphere") {
      p.shape = Shape::sphere;
      for (int d = 0; d < 3; ++d) p.c[d] = value_arg(f, std::string("the sphere's ") + axis[d] + " centre");
      p.r = value_arg(f, "the sphere's radius");
      have_shape = true;
    } else if (key == "cylinder") {
      p.shape = Shape::cylinder;
      p.dim = dim_arg(f, "the cylinder's axis (x, y or z)");
      for (int d = 0; d < 3; ++d)
        if (d != p.dim) p.c[d] = value_arg(f, std::string("the cylinder's ") + axis[d] + " coordinate");
      p.r = value_arg(f, "the cylinder's radius");
      have_shape = true;
    } else if (key == "plane") {
      p.shape = Shape::plane;
      p.dim = dim_arg(f, "the plane's normal (x, y or z)");
      p.plane = value_arg(f, "the plane's position");
      p.plane_side = f.a.choice("the plane's side (lo or hi)", {"lo", "hi"}) == "lo" ? -1.0 : 1.0;
      have_shape = true;
    } else if (key == "side") {
      p.outside = f.a.choice("side (in or out)", {"in", "out"}) == "out";
    } else {
      lattice_units = f.a.choice("units (lattice or box)", {"lattice", "box"}) == "lattice";
    }
  }
  if (!have_shape) f.a.fail("fix indent needs a geometry: sphere, cylinder or plane (LAMMPS)");
  // LAMMPS scales numeric geometry (not variables) by the lattice spacings, `none 1.0` without a lattice;
  // a radius by the x spacing.
  double scale[3];
  for (int d = 0; d < 3; ++d) scale[d] = lattice_units && f.ctx.lattice[d] > 0.0 ? f.ctx.lattice[d] : 1.0;
  if (p.shape == Shape::plane) {
    if (p.plane.var.empty()) p.plane.number *= scale[p.dim];
  } else {
    for (int d = 0; d < 3; ++d)
      if (p.c[d].var.empty()) p.c[d].number *= scale[d];
    if (p.r.var.empty()) p.r.number *= scale[0];
  }
  return std::make_unique<FixIndent>(f, p);
}

}  // namespace

WMD_FIX_STYLE("indent", make)

}  // namespace wmd::md
