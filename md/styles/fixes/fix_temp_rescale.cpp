// fix temp/rescale N Tstart Tstop window fraction: every N steps, when the temperature is further than
// `window` from the (ramped) target, velocities of the group are scaled to move it `fraction` of the way
// (LAMMPS fix temp/rescale); its temperature compute is its own `ID_temp` or the one fix_modify temp names,
// whose bias (temp/partial, temp/com, temp/region) is removed before the scaling and restored after. Its
// scalar is the cumulative energy removed (eV, extensive).
#include <cmath>

#include "base/units.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/fixes/thermostat_temperature.hpp"

namespace wmd::md {
namespace {

class FixTempRescale : public Fix {
 public:
  FixTempRescale(const FixArgs& f, int every, double t0, double t1, double window, double fraction)
      : Fix(f.id, f.style, f.group),
        every_(every),
        t_start_(t0),
        t_stop_(t1),
        window_(window),
        fraction_(fraction),
        temperature_(f) {}
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 0, -1, true}; }
  /// f_ID changes only every N steps (LAMMPS's global_freq = N: thermo must print on multiples of it).
  int64_t global_freq() const override { return every_; }

  bool modify_param(const std::string& key, io::ArgCursor& a, const StyleLookup& styles) override {
    return temperature_.modify_param(key, a, styles);
  }

  void setup(FixContext& c) override { temperature_.setup(c); }
  void end_of_step(FixContext& c) override {
    if (c.s.step % every_ != 0) return;
    Compute& t = temperature_.get(c);
    const ComputeContext cc = c.compute_context();
    const double t_current = t.compute_scalar(cc);
    if (t.dof() < 1.0) return;
    if (t_current == 0.0)
      throw RunError("fix temp/rescale " + id_ + ": the temperature is 0 (cannot rescale)");
    double t_target = t_start_ + c.run_fraction() * (t_stop_ - t_start_);
    if (std::fabs(t_current - t_target) <= window_) return;
    t_target = t_current - fraction_ * (t_current - t_target);
    const double factor = std::sqrt(t_target / t_current);
    energy_ += (t_current - t_target) * (0.5 * units::boltz * t.dof());
    Atoms& a = c.s.atoms;
    const bool bias = t.has_bias();
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      if (bias) t.remove_bias(c.s, i);
      a.vx[i] *= factor, a.vy[i] *= factor, a.vz[i] *= factor;
      if (bias) t.restore_bias(c.s, i);
    }
  }
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
  int every_;
  double t_start_, t_stop_, window_, fraction_, energy_ = 0.0;
  ThermostatTemperature temperature_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  const int every = static_cast<int>(f.a.integer("N (steps between rescalings)", 1, 2000000000));
  const double t0 = f.a.non_negative("Tstart (K)");
  const double t1 = f.a.non_negative("Tstop (K)");
  const double window = f.a.non_negative("the window (K)");
  const double fraction = f.a.real("the fraction");
  f.a.finish();
  if (fraction < 0.0 || fraction > 1.0) f.a.fail("fix temp/rescale: the fraction must lie in [0, 1]");
  return std::make_unique<FixTempRescale>(f, every, t0, t1, window, fraction);
}

}  // namespace

WMD_FIX_STYLE("temp/rescale", make)

}  // namespace wmd::md
