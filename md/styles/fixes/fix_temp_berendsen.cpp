// fix temp/berendsen Tstart Tstop Tdamp (LAMMPS semantics, end_of_step): velocities of the group scaled by
// λ = sqrt(1 + dt/τ (T0/T − 1)), T from the fix's own temperature compute (dof counted at the run's set-up)
// or the one fix_modify temp names (its bias removed around the scaling). Scalar: the energy removed.
#include <cmath>

#include "base/units.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/fixes/thermostat_temperature.hpp"

namespace wmd::md {
namespace {

class FixTempBerendsen : public Fix {
 public:
  FixTempBerendsen(const FixArgs& f, double t0, double t1, double period)
      : Fix(f.id, f.style, f.group), t_start_(t0), t_stop_(t1), period_(period), temperature_(f) {}

  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 0, -1, true}; }  // energy removed: extensive
  bool modify_param(const std::string& key, io::ArgCursor& a, const StyleLookup& styles) override {
    return temperature_.modify_param(key, a, styles);
  }

  void setup(FixContext& c) override { temperature_.setup(c); }
  void end_of_step(FixContext& c) override {
    Compute& t = temperature_.get(c);
    const double t_current = t.compute_scalar(c.compute_context());
    const double dof = t.dof();
    if (dof < 1) return;
    if (t_current == 0.0)
      throw RunError("fix temp/berendsen " + id_ + ": the group temperature is 0 (cannot rescale)");
    const double target = t_start_ + c.run_fraction() * (t_stop_ - t_start_);
    const double lambda = std::sqrt(1.0 + c.s.dt / period_ * (target / t_current - 1.0));
    energy_ += t_current * (1.0 - lambda * lambda) * (0.5 * units::boltz * dof);
    Atoms& a = c.s.atoms;
    const bool bias = t.has_bias();
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      if (bias) t.remove_bias(c.s, i);
      a.vx[i] *= lambda, a.vy[i] *= lambda, a.vz[i] *= lambda;
      if (bias) t.restore_bias(c.s, i);
    }
  }
  /// Cumulative energy removed from the group by the rescaling, eV (LAMMPS's f_ID).
  bool scalar(double& v) const override {
    v = energy_;
    return true;
  }
  void save_state(FixStateMap& out) const override { out["energy"] = {energy_}; }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: one finite value (the energy the thermostat has exchanged).
    if (const std::vector<double>* e = FixStateReader(in, *this).sized_finite("energy", {1}))
      energy_ = (*e)[0];
  }

 private:
  double t_start_, t_stop_, period_, energy_ = 0.0;
  ThermostatTemperature temperature_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  const double t0 = f.a.non_negative("Tstart (K)");
  const double t1 = f.a.non_negative("Tstop (K)");
  const double period = f.a.positive("Tdamp (ps)");
  f.a.finish();
  return std::make_unique<FixTempBerendsen>(f, t0, t1, period);
}

}  // namespace

WMD_FIX_STYLE("temp/berendsen", make)

}  // namespace wmd::md
