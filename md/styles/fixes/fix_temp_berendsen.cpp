// fix temp/berendsen (LAMMPS semantics, end_of_step): velocities of the group scaled by
// λ = sqrt(1 + dt/τ (T0/T − 1)).
#include <cmath>

#include "base/units.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixTempBerendsen : public Fix {
 public:
  FixTempBerendsen(const std::string& id, uint32_t group, double t0, double t1, double period)
      : Fix(id, "temp/berendsen", group), t_start_(t0), t_stop_(t1), period_(period) {}

  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 0, -1, true}; }  // energy removed: extensive

  void end_of_step(FixContext& c) override {
    double dof;
    const double t = fix_temperature(c, group_, &dof);
    if (dof < 1) return;
    if (t == 0.0)
      throw RunError("fix temp/berendsen " + id_ + ": the group temperature is 0 (cannot rescale)");
    const double target = t_start_ + c.run_fraction() * (t_stop_ - t_start_);
    const double lambda = std::sqrt(1.0 + c.s.dt / period_ * (target / t - 1.0));
    energy_ += t * (1.0 - lambda * lambda) * 0.5 * units::boltz * dof;
    Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      a.vx[i] *= lambda, a.vy[i] *= lambda, a.vz[i] *= lambda;
    }
  }
  /// Cumulative energy removed from the group by the rescaling, eV (LAMMPS's f_ID).
  bool scalar(double& v) const override {
    v = energy_;
    return true;
  }
  void save_state(FixStateMap& out) const override { out["energy"] = {energy_}; }
  void restore_state(const FixStateMap& in) override {
    auto it = in.find("energy");
    if (it != in.end() && !it->second.empty()) energy_ = it->second[0];
  }

 private:
  double t_start_, t_stop_, period_, energy_ = 0.0;
};

}  // namespace

static std::unique_ptr<Fix> make_fix_temp_berendsen(const FixArgs& f) {
  const std::string& id = f.id;
  const uint32_t group = f.group;
  io::ArgCursor& a = f.a;
  const double t0 = a.non_negative("Tstart (K)");
  const double t1 = a.non_negative("Tstop (K)");
  const double period = a.positive("Tdamp (ps)");
  a.finish();
  return std::make_unique<FixTempBerendsen>(id, group, t0, t1, period);
}

WMD_FIX_STYLE("temp/berendsen", make_fix_temp_berendsen)

}  // namespace wmd::md
