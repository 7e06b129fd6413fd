// fix wall/harmonic | wall/lj93 | wall/lj126 | wall/lj1043 | wall/morse face args … [units lattice|box]
// [pbc yes|no] [fld no], as LAMMPS's FixWall family: flat walls at a box face (EDGE), a position or an
// equal-style variable, pushing the group's atoms within the cutoff along the face's normal; energies shifted
// to zero at the cutoff. Scalar: the walls' energy (extensive; fix_modify energy yes adds it to pe); vector:
// the force on each wall. Applied after the forces of each step, at the set-up and while minimising; an atom
// on or behind a wall surface stops the run (LAMMPS's "Particle on or inside fix wall surface"; lj1043 skips
// it, as LAMMPS). The walls' virial is not added to the pressure (LAMMPS's default, fix_modify virial no).
#include <array>
#include <cmath>

#include "md/styles/fixes/number_or_variable.hpp"

namespace wmd::md {
namespace {

enum class Kind { harmonic, lj93, lj126, lj1043, morse };

struct Wall {
  int dim = 0, side = -1;  // side −1: a lo face (atoms above it), +1: a hi face
  bool edge = false;
  NumberOrVariable coord, epsilon, sigma, alpha;
  double cutoff = 0.0;
  double coeff[7] = {0, 0, 0, 0, 0, 0, 0}, offset = 0.0;
};

class FixWall : public Fix {
 public:
  FixWall(const FixArgs& f, Kind kind, std::vector<Wall> walls, const double scale[3])
      : Fix(f.id, f.style, f.group), kind_(kind), walls_(std::move(walls)), at_(f.a.pos()) {
    for (int d = 0; d < 3; ++d) scale_[d] = scale[d];
  }
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  bool has_global_energy() const override { return true; }
  OutputShape shape() const override { return {true, static_cast<int>(walls_.size()), -1, true}; }

  void init(FixContext& c) override {
    for (Wall& w : walls_) precompute(c, w);
  }
  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
    tally_.start(c.comm, static_cast<int>(walls_.size()) + 1);  // energy, then each wall's force
    bool variables = false;
    for (const Wall& w : walls_)
      variables |=
          w.coord.is_variable() || w.epsilon.is_variable() || w.sigma.is_variable() || w.alpha.is_variable();
    if (variables && c.styles) c.styles->clearstep_computes();  // fresh computes, as LAMMPS
    for (size_t m = 0; m < walls_.size(); ++m) {
      Wall& w = walls_[m];
      const double coord =
          w.coord.get(c, at_, "fix " + style_) * (w.coord.is_variable() ? scale_[w.dim] : 1.0);
      if (w.epsilon.is_variable() || w.sigma.is_variable() || w.alpha.is_variable()) precompute(c, w);
      push(c, m, coord);
    }
    tally_.finish();
  }
  bool scalar(double& v) const override {
    v = total(0);
    return true;
  }
  double vector_value(int i) const override {
    return i >= 0 && i < static_cast<int>(walls_.size()) ? total(i + 1) : 0.0;
  }

 private:
  // LAMMPS's precompute: the coefficients and the energy at the cutoff, from ε and σ (and α for Morse).
  void precompute(FixContext& c, Wall& w) {
    const std::string who = "fix " + style_;
    const double eps = w.epsilon.get(c, at_, who),
                 sig = kind_ == Kind::harmonic ? 0.0 : w.sigma.get(c, at_, who);
    if (eps < 0.0 || sig < 0.0) throw RunError("Variable evaluation in fix " + style_ + " gave bad value");
    double* k = w.coeff;
    const double rc = w.cutoff;
    switch (kind_) {
      case Kind::harmonic:
        k[0] = eps;
        break;
      case Kind::lj93: {
        k[0] = 6.0 / 5.0 * eps * std::pow(sig, 9.0), k[1] = 3.0 * eps * std::pow(sig, 3.0);
        k[2] = 2.0 / 15.0 * eps * std::pow(sig, 9.0), k[3] = eps * std::pow(sig, 3.0);
        const double rinv = 1.0 / rc, r2inv = rinv * rinv, r4inv = r2inv * r2inv;
        w.offset = k[2] * r4inv * r4inv * rinv - k[3] * r2inv * rinv;
        break;
      }
      case Kind::lj126: {
        k[0] = 48.0 * eps * std::pow(sig, 12.0), k[1] = 24.0 * eps * std::pow(sig, 6.0);
        k[2] = 4.0 * eps * std::pow(sig, 12.0), k[3] = 4.0 * eps * std::pow(sig, 6.0);
        const double r2inv = 1.0 / (rc * rc), r6inv = r2inv * r2inv * r2inv;
        w.offset = r6inv * (k[2] * r6inv - k[3]);
        break;
      }
      case Kind::lj1043: {
        const double two_pi = 2.0 * M_PI;
        k[0] = two_pi * 2.0 / 5.0 * eps * std::pow(sig, 10.0);
        k[1] = two_pi * eps * std::pow(sig, 4.0);
        k[2] = two_pi * std::pow(2.0, 1 / 2.0) / 3 * eps * std::pow(sig, 3.0);
        k[3] = 0.61 / std::pow(2.0, 1 / 2.0) * sig;
        k[4] = k[0] * 10.0, k[5] = k[1] * 4.0, k[6] = k[2] * 3.0;
        const double rinv = 1.0 / rc, r2inv = rinv * rinv, r4inv = r2inv * r2inv;
        w.offset = k[0] * r4inv * r4inv * r2inv - k[1] * r4inv - k[2] * std::pow(rc + k[3], -3.0);
        break;
      }
      case Kind::morse: {
        const double alpha = w.alpha.get(c, at_, who);
        k[0] = 2.0 * eps * alpha, k[1] = alpha, k[2] = eps, k[3] = sig;
        const double adr = -alpha * (rc - sig);
        w.offset = eps * (std::exp(2.0 * adr) - 2.0 * std::exp(adr));
        break;
      }
    }
  }
  void push(FixContext& c, size_t m, double coord) {
    const Wall& w = walls_[m];
    Atoms& a = c.s.atoms;
    const double* x = w.dim == 0 ? a.x.data() : w.dim == 1 ? a.y.data() : a.z.data();
    double* f = w.dim == 0 ? a.fx.data() : w.dim == 1 ? a.fy.data() : a.fz.data();
    const double* k = w.coeff;
    const double side = w.side;
    bool inside = false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      const double delta = w.side < 0 ? x[i] - coord : coord - x[i];
      if (kind_ == Kind::lj1043) {
        if (delta <= 0.0 || delta > w.cutoff) continue;
      } else {
        if (delta >= w.cutoff) continue;
        if (delta <= 0.0) {
          inside = true;
          continue;
        }
      }
      double fwall = 0.0, e = 0.0;
      switch (kind_) {
        case Kind::harmonic: {
          const double dr = w.cutoff - delta;
          fwall = side * 2.0 * k[0] * dr;
          e = k[0] * dr * dr;
          break;
        }
        case Kind::lj93: {
          const double rinv = 1.0 / delta, r2inv = rinv * rinv, r4inv = r2inv * r2inv;
          const double r10inv = r4inv * r4inv * r2inv;
          fwall = side * (k[0] * r10inv - k[1] * r4inv);
          e = k[2] * r4inv * r4inv * rinv - k[3] * r2inv * rinv - w.offset;
          break;
        }
        case Kind::lj126: {
          const double rinv = 1.0 / delta, r2inv = rinv * rinv, r6inv = r2inv * r2inv * r2inv;
          fwall = side * r6inv * (k[0] * r6inv - k[1]) * rinv;
          e = r6inv * (k[2] * r6inv - k[3]) - w.offset;
          break;
        }
        case Kind::lj1043: {
          const double rinv = 1.0 / delta, r2inv = rinv * rinv, r4inv = r2inv * r2inv;
          const double r10inv = r4inv * r4inv * r2inv;
          fwall = side * (k[4] * r10inv * rinv - k[5] * r4inv * rinv - k[6] * std::pow(delta + k[3], -4.0));
          e = k[0] * r10inv - k[1] * r4inv - k[2] * std::pow(delta + k[3], -3.0) - w.offset;
          break;
        }
        case Kind::morse: {
          const double dexp = std::exp(-k[1] * (delta - k[3]));
          // The force divided by δ, as lmp 2021 has it (not the energy's derivative; later LAMMPS dropped
          // the division): users' numbers are lmp's (docs/lammps-scripts.md).
          fwall = side * k[0] * (dexp * dexp - dexp) / delta;
          e = k[2] * (dexp * dexp - 2.0 * dexp) - w.offset;
          break;
        }
      }
      f[i] -= fwall;
      tally_.add(0, e);
      tally_.add(static_cast<int>(m) + 1, fwall);
    }
    if (inside)
      throw RunError("Particle on or inside fix " + style_ + " surface (step " + std::to_string(c.s.step) +
                     ")");
  }
  // Summed over ranks when first asked after a step (LAMMPS's eflag): collective.
  double total(size_t k) const { return tally_.total(k); }

  Kind kind_;
  std::vector<Wall> walls_;
  SourcePos at_;
  double scale_[3] = {1.0, 1.0, 1.0};
  StepTally tally_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const Kind kind = f.style == "wall/harmonic" ? Kind::harmonic
                    : f.style == "wall/lj93"   ? Kind::lj93
                    : f.style == "wall/lj126"  ? Kind::lj126
                    : f.style == "wall/lj1043" ? Kind::lj1043
                                               : Kind::morse;
  const std::vector<std::string> faces = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};
  std::vector<Wall> walls;
  bool lattice_units = true, pbc = false;
  while (!a.done()) {
    const std::string key =
        a.choice("a face or keyword", {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi", "units", "pbc", "fld"});
    if (key == "units") {
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
    } else if (key == "pbc") {
      pbc = a.yes_no("pbc");
    } else if (key == "fld") {
      if (a.yes_no("fld"))
        a.fail("fix " + f.style + ": fld yes is not supported (it is for FLD lubrication)");
    } else {
      const int which = static_cast<int>(std::find(faces.begin(), faces.end(), key) - faces.begin());
      for (const Wall& w : walls)
        if (w.dim == which / 2 && (w.side < 0) == (which % 2 == 0))
          a.fail("Wall defined twice in fix wall command");
      Wall w;
      w.dim = which / 2, w.side = which % 2 == 0 ? -1 : 1;
      if (a.peek() == "EDGE") {
        // The box face where the fix is defined (LAMMPS reads it once, here).
        a.word("EDGE");
        w.edge = true;
        w.coord.number = w.side < 0 ? f.ctx.s.box.lo[w.dim] : f.ctx.s.box.hi[w.dim];
      } else {
        w.coord = NumberOrVariable::read(a, "the wall position (EDGE, a number or v_name)");
      }
      w.epsilon = NumberOrVariable::read(a, kind == Kind::harmonic ? "K (energy/distance²)" : "epsilon");
      if (kind == Kind::morse) w.alpha = NumberOrVariable::read(a, "alpha");
      w.sigma = NumberOrVariable::read(a, kind == Kind::morse ? "r0" : "sigma");
      w.cutoff = a.real("the cutoff");
      if (w.cutoff <= 0.0) a.fail("Fix wall cutoff <= 0.0");
      walls.push_back(w);
    }
  }
  if (walls.empty()) a.fail("fix " + f.style + " needs at least one face");
  for (const Wall& w : walls)
    if (!pbc && f.ctx.s.box.periodic(w.dim)) a.fail("Cannot use fix wall in periodic dimension");
  // LAMMPS scales numeric positions (not EDGE, not variables until they are read) by the lattice spacings.
  double scale[3];
  for (int d = 0; d < 3; ++d) scale[d] = lattice_units && f.ctx.lattice[d] > 0.0 ? f.ctx.lattice[d] : 1.0;
  for (Wall& w : walls)
    if (!w.edge && !w.coord.is_variable()) w.coord.number *= scale[w.dim];
  return std::make_unique<FixWall>(f, kind, std::move(walls), scale);
}

}  // namespace

WMD_FIX_STYLE("wall/harmonic", make)
WMD_FIX_STYLE("wall/lj93", make)
WMD_FIX_STYLE("wall/lj126", make)
WMD_FIX_STYLE("wall/lj1043", make)
WMD_FIX_STYLE("wall/morse", make)

}  // namespace wmd::md
