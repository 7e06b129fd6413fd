// fix spring/self K [xyz|xy|xz|yz|x|y|z]: each atom of the group tied by a spring of stiffness K (eV/Å²) to
// its unwrapped position when the fix was defined, as LAMMPS fix spring/self: F −= K·d along the chosen
// directions, after the forces of each step, at the set-up and while minimising. Scalar: the springs' energy
// ½K Σ|d|² (extensive; fix_modify energy yes adds it to pe).
#include "md/styles/computes/reference_positions.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class FixSpringSelf : public Fix {
 public:
  FixSpringSelf(const FixArgs& f, double k, const bool use[3]) : Fix(f.id, f.style, f.group), k_(k) {
    for (int d = 0; d < 3; ++d) use_[d] = use[d];
    if (f.ctx.comm) origin_.take(f.ctx.s, *f.ctx.comm, group_);
  }
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  bool has_global_energy() const override { return true; }
  OutputShape shape() const override { return {true, 0, -1, true}; }

  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
    Atoms& a = c.s.atoms;
    TermSum e(c.comm, 1);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      const std::array<double, 3>* x0 = origin_.find(a.id[i]);
      if (!x0) continue;
      const auto u = ReferencePositions::unwrapped(c.s, i);
      const double dx = use_[0] ? u[0] - (*x0)[0] : 0.0;
      const double dy = use_[1] ? u[1] - (*x0)[1] : 0.0;
      const double dz = use_[2] ? u[2] - (*x0)[2] : 0.0;
      a.fx[i] -= k_ * dx, a.fy[i] -= k_ * dy, a.fz[i] -= k_ * dz;
      e.add(0, k_ * (dx * dx + dy * dy + dz * dz));
    }
    energy_ = 0.5 * e.total()[0];
  }
  bool scalar(double& v) const override {
    v = energy_;
    return true;
  }
  void save_state(FixStateMap& out) const override {
    origin_.save(out);
    out["energy"] = {energy_};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: the origins are whole finite (id, x, y, z) records, the energy one finite value.
    const FixStateReader r(in, *this);
    const std::vector<double>* e = r.sized_finite("energy", {1});
    origin_.restore(r);
    if (e) energy_ = (*e)[0];
  }

 private:
  double k_;
  bool use_[3] = {true, true, true};
  ReferencePositions origin_;
  double energy_ = 0.0;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  const double k = f.a.positive("K (eV/Å²)");
  bool use[3] = {true, true, true};
  if (!f.a.done()) {
    const std::string d = f.a.choice("the directions", {"xyz", "xy", "xz", "yz", "x", "y", "z"});
    for (int k2 = 0; k2 < 3; ++k2) use[k2] = d.find("xyz"[k2]) != std::string::npos;
  }
  f.a.finish();
  return std::make_unique<FixSpringSelf>(f, k, use);
}

}  // namespace

WMD_FIX_STYLE("spring/self", make)

}  // namespace wmd::md
