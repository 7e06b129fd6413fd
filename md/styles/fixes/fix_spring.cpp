// fix spring tether K x y z R0 | couple group2 K x y z R0, as LAMMPS fix spring: a spring of stiffness K and
// rest length R0 pulls the group's centre of mass (unwrapped) towards the point (x,y,z) (tether) or towards
// group2's centre of mass offset by (x,y,z) (couple); a NULL component is left out of the distance. The force
// is shared among the atoms in proportion to their masses, after the forces of each step, at the set-up and
// while minimising. Scalar: the spring energy ½K(r−R0)² (fix_modify energy yes adds it to pe); vector: the
// spring force on the group (tether: towards the point; couple: on group1) and its signed magnitude.
#include <algorithm>
#include <cmath>

#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

struct SpringSpec {
  bool couple = false;
  uint32_t group2 = 0;
  double k = 0.0, r0 = 0.0;
  double c[3] = {0.0, 0.0, 0.0};
  bool use[3] = {true, true, true};
};

class FixSpring : public Fix {
 public:
  FixSpring(const FixArgs& f, const SpringSpec& s) : Fix(f.id, f.style, f.group), p_(s) {}
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  bool has_global_energy() const override { return true; }
  OutputShape shape() const override { return {true, 4, -1, true}; }

  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
    double xcm[3], xcm2[3] = {0.0, 0.0, 0.0};
    const double mass = group_xcm(c, group_, xcm);
    const double mass2 = p_.couple ? group_xcm(c, p_.group2, xcm2) : 0.0;
    double d[3];
    for (int k = 0; k < 3; ++k) {
      d[k] = p_.couple ? xcm2[k] - xcm[k] - p_.c[k] : xcm[k] - p_.c[k];
      if (!p_.use[k]) d[k] = 0.0;
    }
    const double r = std::max(std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), 1.0e-10);
    const double dr = r - p_.r0;
    double f[3];
    for (int k = 0; k < 3; ++k) f[k] = p_.k * d[k] * dr / r;
    for (int k = 0; k < 3; ++k) ftotal_[k] = p_.couple ? f[k] : -f[k];
    ftotal_[3] = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    if (dr < 0.0) ftotal_[3] = -ftotal_[3];
    energy_ = 0.5 * p_.k * dr * dr;
    // LAMMPS's order: group1 is pulled by f/M1 per unit mass (tether: against d), group2 by −f/M2.
    double f1[3], f2[3];
    for (int k = 0; k < 3; ++k) {
      f1[k] = mass > 0.0 ? f[k] / mass : f[k];
      f2[k] = mass2 > 0.0 ? f[k] / mass2 : f[k];
    }
    const double sign1 = p_.couple ? 1.0 : -1.0;
    Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      const double m = c.s.mass[a.type[i]];
      if (a.mask[i] & group_) {
        a.fx[i] += sign1 * f1[0] * m, a.fy[i] += sign1 * f1[1] * m, a.fz[i] += sign1 * f1[2] * m;
      }
      if (p_.couple && (a.mask[i] & p_.group2)) {
        a.fx[i] -= f2[0] * m, a.fy[i] -= f2[1] * m, a.fz[i] -= f2[2] * m;
      }
    }
  }
  bool scalar(double& v) const override {
    v = energy_;
    return true;
  }
  double vector_value(int i) const override { return i >= 0 && i < 4 ? ftotal_[i] : 0.0; }

  void save_state(FixStateMap& out) const override {
    out["spring"] = {energy_, ftotal_[0], ftotal_[1], ftotal_[2], ftotal_[3]};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: the energy and the 4 force components, finite.
    const std::vector<double>* v = FixStateReader(in, *this).sized_finite("spring", {5});
    if (!v) return;
    energy_ = (*v)[0];
    for (int k = 0; k < 4; ++k) ftotal_[k] = (*v)[k + 1];
  }

 private:
  SpringSpec p_;
  double energy_ = 0.0;
  double ftotal_[4] = {0.0, 0.0, 0.0, 0.0};
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  SpringSpec p;
  p.couple = f.a.choice("tether or couple", {"tether", "couple"}) == "couple";
  if (p.couple) {
    const std::string g2 = f.a.word("the second group of fix spring couple");
    p.group2 = f.ctx.s.group_bit(g2);
    if (!p.group2) f.a.fail("fix spring couple: unknown group '" + g2 + "'");
    if (p.group2 == f.group) f.a.fail("fix spring couple: the two groups must differ (LAMMPS)");
  }
  p.k = f.a.real("the spring constant K (eV/Å²)");
  static const char* axis[3] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k) {
    if (f.a.peek() == "NULL") {
      f.a.word("NULL");
      p.use[k] = false;
    } else {
      p.c[k] = f.a.real(std::string("the ") + axis[k] + " coordinate (Å) or NULL");
    }
  }
  p.r0 = f.a.real("the rest length R0 (Å)");
  if (p.r0 < 0.0) f.a.fail("fix spring: R0 must be >= 0 (LAMMPS)");
  f.a.finish();
  return std::make_unique<FixSpring>(f, p);
}

}  // namespace

WMD_FIX_STYLE("spring", make)

}  // namespace wmd::md
