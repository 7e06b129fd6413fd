// fix momentum N [linear xflag yflag zflag] [angular] [rescale]: every N steps (end_of_step) the group's
// centre-of-mass velocity (the flagged components) and/or its angular momentum are removed, the kinetic
// energy restored by a uniform scaling with rescale (LAMMPS fix momentum).
#include <cmath>

#include "md/core/velocity.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixMomentum : public Fix {
 public:
  FixMomentum(const FixArgs& f, int every, bool linear, const int flag[3], bool angular, bool rescale)
      : Fix(f.id, f.style, f.group),
        every_(every),
        linear_(linear),
        flag_{flag[0], flag[1], flag[2]},
        angular_(angular),
        rescale_(rescale) {}
  bool reads_energy() const override { return false; }
  void end_of_step(FixContext& c) override {
    if (c.s.step % every_ != 0) return;
    Atoms& a = c.s.atoms;
    const double ke_old = rescale_ ? kinetic(c) : 0.0;
    if (linear_) {
      TermSum mass(c.comm, 1), p(c.comm, 3);
      for (size_t i = 0; i < a.size(); ++i) {
        if (!selected(c.s, i)) continue;
        const double m = c.s.mass[a.type[i]];
        mass.add(0, m);
        p.add(0, a.vx[i] * m), p.add(1, a.vy[i] * m), p.add(2, a.vz[i] * m);
      }
      const double mt = mass.total()[0];
      if (mt == 0.0) return;  // an empty group
      const std::vector<double> pt = p.total();
      for (size_t i = 0; i < a.size(); ++i) {
        if (!selected(c.s, i)) continue;
        if (flag_[0]) a.vx[i] -= pt[0] / mt;
        if (flag_[1]) a.vy[i] -= pt[1] / mt;
        if (flag_[2]) a.vz[i] -= pt[2] / mt;
      }
    }
    if (angular_) zero_group_rotation(c.s, c.comm, group_);
    if (rescale_) {
      const double ke_new = kinetic(c);
      const double factor = ke_new > 0.0 ? std::sqrt(ke_old / ke_new) : 1.0;
      for (size_t i = 0; i < a.size(); ++i)
        if (selected(c.s, i)) a.vx[i] *= factor, a.vy[i] *= factor, a.vz[i] *= factor;
    }
  }

 private:
  double kinetic(const FixContext& c) const {
    const auto in = [&](const Atoms&, size_t i) { return selected(c.s, i); };
    return kinetic_sums(c.s, c.comm, kKineticScalar, in).mv2;
  }
  int every_;
  bool linear_;
  int flag_[3];
  bool angular_, rescale_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  const int every = static_cast<int>(f.a.integer("N (steps)", 1, 2000000000));
  bool linear = false, angular = false, rescale = false;
  int flag[3] = {1, 1, 1};
  while (!f.a.done()) {
    const std::string k = f.a.choice("a fix momentum keyword", {"linear", "angular", "rescale"});
    if (k == "linear") {
      linear = true;
      for (int& x : flag) x = static_cast<int>(f.a.integer("a linear flag (0 or 1)", 0, 1));
    } else if (k == "angular") {
      angular = true;
    } else {
      rescale = true;
    }
  }
  if (!linear && !angular) f.a.fail("fix momentum needs linear or angular (as LAMMPS)");
  return std::make_unique<FixMomentum>(f, every, linear, flag, angular, rescale);
}

}  // namespace

WMD_FIX_STYLE("momentum", make)

}  // namespace wmd::md
