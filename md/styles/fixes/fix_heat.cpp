// fix ID group heat N eflux [region ID]: adds (or removes, eflux < 0) heat at eflux eV/ps to the group's
// atoms (those inside the region, tested each time) every N steps by scaling their velocities about their
// centre-of-mass velocity, which keeps their momentum — LAMMPS's fix heat (Jund and Jullien's HEX). eflux is
// a number, an equal-style variable, or an atom-style variable (each atom its own flux, the scale factors
// then per atom and the momentum restored by one common shift, as LAMMPS). f_ID is the velocity scale factor
// of the last application (the mean over the atoms with an atom-style flux).
//
// As LAMMPS: the group's mass is taken at each run's set-up (with a region, at every application); the
// kinetic energy and centre-of-mass velocity at every application; "kinetic energy went negative" stops the
// run.
#include <cmath>
#include <vector>

#include "base/units.hpp"
#include "md/core/group_sums.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

class FixHeat : public Fix {
 public:
  FixHeat(const FixArgs& f, int every, double flux, std::string var, const Region* region)
      : Fix(f.id, f.style, f.group), every_(every), flux_(flux), var_(std::move(var)), at_(f.a.pos()) {
    if (region) set_region(*region);
  }
  bool reads_energy() const override { return false; }
  // LAMMPS: scalar_flag, global_freq 1, extscalar 0.
  OutputShape shape() const override { return {true, 0, -1, false}; }

  void setup(FixContext& c) override {
    // LAMMPS's init: the variable's style, a group with atoms and mass.
    atom_style_ = false;
    if (!var_.empty()) {
      atom_style_ = c.styles && c.styles->has_atom_variable(var_);
      if (!atom_style_ && !(c.styles && c.styles->has_variable(var_)))
        fail_input(at_, "fix heat: variable " + var_ + " does not exist or is neither equal- nor atom-style");
    }
    const GroupSelection all{c.s, c.comm, group_, nullptr};
    if (group_count(all) == 0) fail_input(at_, "fix heat: the group has no atoms");
    masstotal_ = group_mass(all);
    if (masstotal_ <= 0.0) fail_input(at_, "fix heat: the group has invalid mass");
  }

  void end_of_step(FixContext& c) override {
    if (c.s.step % every_ != 0) return;
    Atoms& a = c.s.atoms;
    std::vector<double> vheat;
    if (!var_.empty()) {
      c.styles->clearstep_computes();
      if (atom_style_)
        c.styles->atom_variable(var_, at_, vheat);
      else
        flux_ = c.styles->variable(var_);
    }
    const GroupSelection g{c.s, c.comm, group_, has_region_ ? &region_ : nullptr};
    if (has_region_) {
      masstotal_ = group_mass(g);
      if (masstotal_ == 0.0) throw RunError("fix heat " + id_ + ": the group has no atoms in the region");
    }
    const double ke = group_ke(g) * units::ftm2v;
    double vcm[3];
    group_vcm(g, masstotal_, vcm);
    const double vcmsq = vcm[0] * vcm[0] + vcm[1] * vcm[1] + vcm[2] * vcm[2];
    const double dt = c.s.dt;

    if (!atom_style_) {
      const double heat = flux_ * every_ * dt * units::ftm2v;
      const double escale = (ke + heat - 0.5 * vcmsq * masstotal_) / (ke - 0.5 * vcmsq * masstotal_);
      if (escale < 0.0) throw RunError("fix heat " + id_ + ": kinetic energy went negative");
      scale_ = std::sqrt(escale);
      const double vsub[3] = {(scale_ - 1.0) * vcm[0], (scale_ - 1.0) * vcm[1], (scale_ - 1.0) * vcm[2]};
      for (size_t i = 0; i < a.size(); ++i) {
        if (!selected(c.s, i)) continue;
        a.vx[i] = scale_ * a.vx[i] - vsub[0];
        a.vy[i] = scale_ * a.vy[i] - vsub[1];
        a.vz[i] = scale_ * a.vz[i] - vsub[2];
      }
      return;
    }
    // Per-atom fluxes: each atom's factor, and one momentum correction for all. LAMMPS divides each rank's
    // own Σ(s−1)·m·v by the group's mass (no sum over ranks); we sum over ranks, which is one-rank lmp's
    // number.
    TermSum vsum(c.comm, 3), mean(c.comm, 2);
    std::vector<double> scale(a.size(), 1.0);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double heat = vheat[i] * every_ * dt * units::ftm2v;
      const double vs = (ke + heat - 0.5 * vcmsq * masstotal_) / (ke - 0.5 * vcmsq * masstotal_);
      if (vs < 0.0) throw RunError("fix heat " + id_ + ": kinetic energy of an atom went negative");
      scale[i] = std::sqrt(vs);
      const double m = c.s.mass[a.type[i]];
      vsum.add(0, (scale[i] - 1.0) * a.vx[i] * m);
      vsum.add(1, (scale[i] - 1.0) * a.vy[i] * m);
      vsum.add(2, (scale[i] - 1.0) * a.vz[i] * m);
      mean.add(0, scale[i]), mean.add(1, 1.0);
    }
    std::vector<double> vsub = vsum.total();
    for (double& s : vsub) s /= masstotal_;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      a.vx[i] = scale[i] * a.vx[i] - vsub[0];
      a.vy[i] = scale[i] * a.vy[i] - vsub[1];
      a.vz[i] = scale[i] * a.vz[i] - vsub[2];
    }
    // f_ID: LAMMPS's compute_scalar, the mean factor over the atoms of the group (and region) — taken here,
    // where they are the atoms it would find at this step's output.
    const std::vector<double> m = mean.total();
    scale_ = m[1] == 0.0 ? 0.0 : m[0] / m[1];
  }

  bool scalar(double& v) const override {
    v = scale_;
    return true;
  }

 private:
  int every_;
  double flux_;
  std::string var_;
  SourcePos at_;
  bool atom_style_ = false;
  double masstotal_ = 0.0, scale_ = 1.0;  // f_ID: 1 until the first application, as LAMMPS
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  const int every = static_cast<int>(f.a.integer("N (steps between heat additions)", 1, 2000000000));
  double flux = 0.0;
  std::string var;
  if (f.a.peek().rfind("v_", 0) == 0)
    var = f.a.word("eflux").substr(2);
  else
    flux = f.a.real("eflux (eV/ps)");
  const Region* region = nullptr;
  while (!f.a.done()) {
    f.a.choice("a fix heat keyword", {"region"});
    region = &region_arg(f.a, f.ctx.regions, "fix heat");
  }
  return std::make_unique<FixHeat>(f, every, flux, var, region);
}

}  // namespace

WMD_FIX_STYLE("heat", make)

}  // namespace wmd::md
