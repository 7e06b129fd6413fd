// fix nve/limit xmax: velocity Verlet for a group with no atom moving more than xmax (Å) in one step, as
// LAMMPS FixNVELimit: after each half kick a speed above xmax/dt is scaled down to it. Cascade and grain-
// boundary scripts start from overlapping atoms with it. f_ID: how many times a velocity was limited since
// the run began (summed over ranks).
#include <cmath>
#include <vector>

#include "base/units.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class FixNVELimit : public Fix {
 public:
  FixNVELimit(const std::string& id, uint32_t group, double xmax)
      : Fix(id, "nve/limit", group), xmax_(xmax) {}
  bool integrates() const override { return true; }
  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 0, -1, false}; }
  bool scalar(double& v) const override {
    v = count_;
    return true;
  }

  void setup(FixContext&) override { local_ = 0, count_ = 0; }  // LAMMPS's init: the count is per run

  void initial_integrate(FixContext& c) override {
    Atoms& at = c.s.atoms;
    const double dt = c.s.dt, vlimitsq = (xmax_ / dt) * (xmax_ / dt);
    const double dtf = 0.5 * dt * units::ftm2v;
    for (size_t i = 0; i < at.size(); ++i) {
      if (!selected(c.s, i)) continue;
      kick_and_limit(at, i, dtf / c.s.mass[at.type[i]], vlimitsq);
      at.x[i] += dt * at.vx[i];
      at.y[i] += dt * at.vy[i];
      at.z[i] += dt * at.vz[i];
    }
  }
  void final_integrate(FixContext& c) override {
    Atoms& at = c.s.atoms;
    const double dt = c.s.dt, vlimitsq = (xmax_ / dt) * (xmax_ / dt);
    const double dtf = 0.5 * dt * units::ftm2v;
    for (size_t i = 0; i < at.size(); ++i)
      if (selected(c.s, i)) kick_and_limit(at, i, dtf / c.s.mass[at.type[i]], vlimitsq);
  }
  void end_of_step(FixContext& c) override {
    count_ = static_cast<double>(c.comm.sum(static_cast<int64_t>(local_)));
  }

  void save_state(FixStateMap& out) const override { out["local_count"] = {static_cast<double>(local_)}; }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: a count of this rank's atoms, a non-negative integer.
    const FixStateReader r(in, *this);
    if (const std::vector<double>* n = r.sized("local_count", {1}))
      local_ = r.integer(*n, 0, "local_count", 0, FixStateReader::kMaxStep);
  }

 private:
  void kick_and_limit(Atoms& at, size_t i, double dtfm, double vlimitsq) {
    at.vx[i] += dtfm * at.fx[i];
    at.vy[i] += dtfm * at.fy[i];
    at.vz[i] += dtfm * at.fz[i];
    const double vsq = at.vx[i] * at.vx[i] + at.vy[i] * at.vy[i] + at.vz[i] * at.vz[i];
    if (vsq > vlimitsq) {
      ++local_;
      const double scale = std::sqrt(vlimitsq / vsq);
      at.vx[i] *= scale, at.vy[i] *= scale, at.vz[i] *= scale;
    }
  }
  double xmax_;
  int64_t local_ = 0;  // this rank's limited velocities in this run
  double count_ = 0;   // all ranks', as of the last completed step
};

std::unique_ptr<Fix> make_fix_nve_limit(const FixArgs& f) {
  const double xmax = f.a.positive("xmax, the largest move per step (Å)");
  f.a.finish();
  return std::make_unique<FixNVELimit>(f.id, f.group, xmax);
}

}  // namespace

WMD_FIX_STYLE("nve/limit", make_fix_nve_limit)

}  // namespace wmd::md
