// fix ID group ehex N F [region ID] [constrain] [com] [hex]: the enhanced heat exchange (eHEX) of LAMMPS's
// RIGID package (Wirnsberger, Frenkel, Dellago, J. Chem. Phys. 143, 124104 (2015)). Every N steps the atoms
// of the group inside the region (tested on their periodic-wrapped positions) receive heat at F eV/ps: their
// velocities are scaled about their centre-of-mass velocity by √(1 + F·N·dt/K_r), K_r their kinetic energy
// without the centre-of-mass motion, and their positions take eHEX's third-order correction from the forces
// and velocities (Eq. 20 of the paper; `hex` leaves it out: plain HEX). f_ID is the velocity scale factor.
//
// `constrain` (and `com`, which needs it) couples the fix to fix shake/rattle; wafermd has no constraint
// fixes, so LAMMPS would stop at the run with "Fix ehex was configured with keyword constrain, but
// shake/rattle was not defined": so does wafermd (exit 2, at the run's set-up).
#include <cmath>

#include "base/units.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

class FixEhex : public Fix {
 public:
  FixEhex(const FixArgs& f, int every, double flux, const Region* region, bool constrain, bool hex)
      : Fix(f.id, f.style, f.group),
        every_(every),
        flux_(flux),
        constrain_(constrain),
        hex_(hex),
        at_(f.a.pos()) {
    if (region) reservoir_ = *region, has_reservoir_ = true;
  }
  bool reads_energy() const override { return false; }
  // LAMMPS: scalar_flag, global_freq 1, extscalar 0.
  OutputShape shape() const override { return {true, 0, -1, false}; }
  bool scalar(double& v) const override {
    v = scale_;
    return true;
  }

  void setup(FixContext& c) override {
    if (constrain_)
      fail_input(
          at_,
          "fix ehex: keyword constrain needs fix shake or rattle, which wafermd does not have (LAMMPS: "
          "\"Fix ehex was configured with keyword constrain, but shake/rattle was not defined\")");
    int64_t n = 0;
    for (size_t i = 0; i < c.s.atoms.size(); ++i) n += (c.s.atoms.mask[i] & group_) ? 1 : 0;
    if (c.comm.sum(n) == 0) fail_input(at_, "fix ehex: the group has no atoms");
  }

  void end_of_step(FixContext& c) override {
    if (c.s.step % every_ != 0) return;
    Atoms& a = c.s.atoms;
    const Box& b = c.s.box;
    // Which atoms are rescaled: the group's, inside the region after LAMMPS's remap into the periodic box.
    if (has_reservoir_) reservoir_.prematch();
    mask_.assign(a.size(), 0);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      if (!has_reservoir_) {
        mask_[i] = 1;
        continue;
      }
      double x[3] = {a.x[i], a.y[i], a.z[i]};
      if (b.triclinic) remap_point(b, x);  // Domain::remap through fractional coordinates
      for (int d = 0; d < 3 && !b.triclinic; ++d) {
        if (!b.periodic(d)) continue;
        int image = 0;
        wrap_periodic(x[d], image, b.lo[d], b.hi[d]);
      }
      mask_[i] = reservoir_.match(x[0], x[1], x[2]) ? 1 : 0;
    }

    // LAMMPS's com_properties: Σ m v, K, M, Σ f, Σ f·v in one reduction.
    TermSum sum(c.comm, 9);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!mask_[i]) continue;
      const double m = c.s.mass[a.type[i]];
      sum.add(4, m);
      sum.add(3, m / 2. * (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]));
      sum.add(8, a.fx[i] * a.vx[i] + a.fy[i] * a.vy[i] + a.fz[i] * a.vz[i]);
      sum.add(0, m * a.vx[i]), sum.add(1, m * a.vy[i]), sum.add(2, m * a.vz[i]);
      sum.add(5, a.fx[i]), sum.add(6, a.fy[i]), sum.add(7, a.fz[i]);
    }
    const std::vector<double> buf = sum.total();
    const double mr = buf[4];
    if (mr < 1.e-14) throw RunError("fix ehex " + id_ + ": the mass of the region is close to zero");
    const double vcm[3] = {buf[0] / mr, buf[1] / mr, buf[2] / mr};
    const double sfr[3] = {buf[5], buf[6], buf[7]};
    const double kr = buf[3] - 0.5 * mr * (vcm[0] * vcm[0] + vcm[1] * vcm[1] + vcm[2] * vcm[2]);
    const double sfvr = buf[8] - (vcm[0] * sfr[0] + vcm[1] * sfr[1] + vcm[2] * sfr[2]);

    const double dt = c.s.dt;
    const double F = flux_ * units::ftm2v * every_;
    const double escale = 1. + (F * dt) / kr;
    if (escale < 0.0) throw RunError("fix ehex " + id_ + ": kinetic energy went negative");
    scale_ = std::sqrt(escale);
    const double vsub[3] = {(scale_ - 1.0) * vcm[0], (scale_ - 1.0) * vcm[1], (scale_ - 1.0) * vcm[2]};
    double* x[3] = {a.x.data(), a.y.data(), a.z.data()};
    double* v[3] = {a.vx.data(), a.vy.data(), a.vz.data()};
    const double* f[3] = {a.fx.data(), a.fy.data(), a.fz.data()};
    for (size_t i = 0; i < a.size(); ++i) {
      if (!mask_[i]) continue;
      const double mi = c.s.mass[a.type[i]];
      for (int k = 0; k < 3; ++k) {
        if (!hex_) {
          // eHEX's position correction, Eq. (20), in LAMMPS's arithmetic order.
          const double eta = mi * F / (2. * kr) * (v[k][i] - vcm[k]);
          const double eps = eta / (mi * kr) * (F / 48. + sfvr / 6. * units::ftm2v) -
                             F / (12. * kr) * (f[k][i] / mi - sfr[k] / mr) * units::ftm2v;
          x[k][i] -= dt * dt * dt * eps;
        }
        v[k][i] = scale_ * v[k][i] - vsub[k];
      }
    }
  }

 private:
  int every_;
  double flux_;
  bool constrain_, hex_;
  SourcePos at_;
  Region reservoir_;
  bool has_reservoir_ = false;
  double scale_ = 1.0;
  std::vector<char> mask_;  // LAMMPS's scalingmask
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  const int every = static_cast<int>(f.a.integer("N (steps between heat additions)", 1, 2000000000));
  const double flux = f.a.real("F (eV/ps)");
  const Region* region = nullptr;
  bool constrain = false, com = false, hex = false;
  while (!f.a.done()) {
    const std::string k = f.a.choice("a fix ehex keyword", {"region", "constrain", "com", "hex"});
    if (k == "region")
      region = &region_arg(f.a, f.ctx.regions, "fix ehex");
    else
      (k == "constrain" ? constrain : k == "com" ? com : hex) = true;
  }
  if (com && !constrain)
    f.a.fail(
        "fix ehex: keyword com needs keyword constrain (LAMMPS: \"You can only use the keyword 'com' "
        "together with the keyword 'constrain'\")");
  return std::make_unique<FixEhex>(f, every, flux, region, constrain, hex);
}

}  // namespace

WMD_FIX_STYLE("ehex", make)

}  // namespace wmd::md
