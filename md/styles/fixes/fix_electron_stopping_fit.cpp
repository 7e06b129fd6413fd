// fix electron/stopping/fit E1 c1_1 c2_1 … En c1_n c2_n (one triplet per atom type), as LAMMPS's fix of that
// name (EXTRA-FIX; Debian's lmp 2021 lacks it): after the forces, an atom of type t with v² above
// v_min² = 2E_t/(m_t·mvv2e) feels, per component a, F_a −= γ_a v_a with γ_a = c2_t·v_a + c1_t, ramped
// by (v² − v_min²)/(v_max² − v_min²) below v_max² = 2·v_min². It acts on every atom whatever the group (as
// LAMMPS's does), the masses are those when the fix is defined, and its scalar f_ID (intensive, as LAMMPS
// flags it) is the energy removed since the run's set-up: the trapezoid over steps of Σ|v|·|γ∘v|, times the
// step's dt.
#include <cmath>

#include "base/units.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class FixElectronStoppingFit : public Fix {
 public:
  FixElectronStoppingFit(const FixArgs& f, std::vector<double> c1, std::vector<double> c2,
                         std::vector<double> vmin2, std::vector<double> vmax2)
      : Fix(f.id, f.style, f.group),
        c1_(std::move(c1)),
        c2_(std::move(c2)),
        vmin2_(std::move(vmin2)),
        vmax2_(std::move(vmax2)) {}
  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 0, -1, false}; }

  // LAMMPS's init resets the tally at each run; its setup applies the force once (a step of no length).
  void setup(FixContext& c) override {
    loss_local_ = 0.0, prior_ = 0.0, last_step_ = c.s.step;
    post_force(c);
  }
  void post_force(FixContext& c) override {
    Atoms& a = c.s.atoms;
    // Σ|v||F| of this rank's atoms, as LAMMPS tallies (one sum over ranks when f_ID is read); in
    // deterministic mode every rank's, exactly, at every step, so that the tally is the same at any rank
    // count.
    const bool global = c.comm.deterministic();
    TermSum power(global ? c.comm : Comm::local(), 1);
    for (size_t i = 0; i < a.size(); ++i) {
      const int t = a.type[i];
      const double v[3] = {a.vx[i], a.vy[i], a.vz[i]};
      const double vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
      if (!(vv > vmin2_[t])) continue;
      const double frac = vv < vmax2_[t] ? (vv - vmin2_[t]) / (vmax2_[t] - vmin2_[t]) : 1.0;
      double g[3];
      for (int d = 0; d < 3; ++d)
        g[d] = vv < vmax2_[t] ? frac * (c2_[t] * v[d] + c1_[t]) : c2_[t] * v[d] + c1_[t];
      a.fx[i] -= g[0] * v[0], a.fy[i] -= g[1] * v[1], a.fz[i] -= g[2] * v[2];
      const double fx = g[0] * v[0], fy = g[1] * v[1], fz = g[2] * v[2];
      power.add(0, std::sqrt(vv) * std::sqrt(fx * fx + fy * fy + fz * fz));
    }
    const double current = power.total()[0];
    loss_local_ += static_cast<double>(c.s.step - last_step_) * c.s.dt * 0.5 * (prior_ + current);
    last_step_ = c.s.step;
    prior_ = current;
  }
  bool scalar(double& v) const override {
    // The ranks' tallies added in rank order, as LAMMPS's MPI_Allreduce (deterministic mode: every rank
    // holds the exact total already).
    v = comm_ && !comm_->deterministic() ? comm_->sum_in_rank_order(loss_local_) : loss_local_;
    return true;
  }
  void set_comm(const Comm* comm) { comm_ = comm; }
  void save_state(FixStateMap& out) const override {
    out["tally"] = {loss_local_, prior_, static_cast<double>(last_step_)};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: the energy removed and the last step's Σ|v||F| finite, the last step a step.
    const FixStateReader r(in, *this);
    const std::vector<double>* v = r.sized_finite("tally", {3});
    if (!v) return;
    const int64_t last = r.integer(*v, 2, "tally", 0, FixStateReader::kMaxStep);
    loss_local_ = (*v)[0], prior_ = (*v)[1], last_step_ = last;
  }

 private:
  std::vector<double> c1_, c2_, vmin2_, vmax2_;  // per type, 1-based
  // This rank's energy removed and Σ|v||F| of the last step (deterministic mode: all ranks').
  double loss_local_ = 0.0, prior_ = 0.0;
  int64_t last_step_ = 0;
  const Comm* comm_ = nullptr;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const int n = f.ctx.s.ntypes;
  std::vector<double> c1(n + 1, 0.0), c2(n + 1, 0.0), vmin2(n + 1, 0.0), vmax2(n + 1, 0.0);
  for (int t = 1; t <= n; ++t) {
    const double e = a.real("the cutoff energy of type " + std::to_string(t) + " (eV)");
    c1[t] = a.real("c1 of type " + std::to_string(t));
    c2[t] = a.real("c2 of type " + std::to_string(t));
    const double m = f.ctx.s.mass[t];
    if (!(m > 0.0)) a.fail("fix electron/stopping/fit: type " + std::to_string(t) + " has no mass yet");
    const double mvv = 2.0 * e / units::mvv2e;
    vmin2[t] = 1.0 * mvv / m, vmax2[t] = 2.0 * mvv / m;
  }
  if (!a.done())
    a.fail("fix electron/stopping/fit takes three numbers per atom type (" + std::to_string(n) + " types)");
  auto fix = std::make_unique<FixElectronStoppingFit>(f, c1, c2, vmin2, vmax2);
  fix->set_comm(f.ctx.comm);
  return fix;
}

}  // namespace

WMD_FIX_STYLE("electron/stopping/fit", make)

}  // namespace wmd::md
