// fix nvt, npt and nph (npt without the thermostat: the barostat alone, its masses at ptemp or the first
// set-up's temperature): Nosé–Hoover chains on the particles (and on the barostat), Martyna–Tobias–Klein
// barostat for iso/aniso pressure on an orthogonal box — the integration scheme of LAMMPS FixNH
// (Shinoda, Shiga, Mikami, PRB 69, 134103 (2004); Tuckerman et al., J. Phys. A 39, 5629 (2006)).
// fix nvt/sllod: fix nvt on the thermal velocities of a box fix deform (remap v) deforms, as LAMMPS's
// FixNVTSllod: its temperature is the compute temp/deform `ID_temp` it defines on its group (the script can
// read c_ID_temp), the chain is 1 long unless tchain is given, and the thermostat's half-step scales each
// atom's thermal velocity and subtracts the SLLOD term ½dt·(ḣ h⁻¹)·v (of the whole velocity, as lmp 2021).
#include <cmath>

#include "base/units.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

constexpr int kMaxChain = 16;

class FixNH : public Fix {
 public:
  struct Params {
    bool tstat = true, pstat = false, iso = true;
    double t_start = 0, t_stop = 0, t_period = 0;
    double p_temp = 0;  // ptemp: the barostat's temperature without a thermostat (0: the first set-up's)
    double p_start[3] = {0, 0, 0}, p_stop[3] = {0, 0, 0}, p_period[3] = {0, 0, 0};
    bool p_flag[3] = {false, false, false};
    int tchain = 3, pchain = 3;
    bool mtk = true;
    double drag = 0.0;
    bool sllod = false;
  };
  FixNH(const std::string& id, uint32_t group, const std::string& style, const Params& p,
        std::unique_ptr<Compute> temp)
      : Fix(id, style, group), p_(p), temp_(std::move(temp)) {
    for (int k = 0; k <= kMaxChain; ++k) eta_[k] = eta_dot_[k] = eta_dotdot_[k] = eta_mass_[k] = 0.0;
    for (int k = 0; k <= kMaxChain; ++k) etap_[k] = etap_dot_[k] = etap_dotdot_[k] = etap_mass_[k] = 0.0;
  }
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool integrates() const override { return true; }
  bool changes_box() const override { return p_.pstat; }
  std::pair<std::string, std::string> added_compute() const override {
    if (!p_.sllod) return {};
    return {id_ + "_temp", "temp/deform"};
  }

  // f_ID: the energy of the thermostat and barostat variables (LAMMPS's FixNH::compute_scalar), so that
  // etotal + f_ID is the conserved quantity.
  OutputShape shape() const override { return {true, 0, -1, true}; }
  bool scalar(double& v) const override {
    const double kt = units::boltz * t_target_;
    double e = 0.0;
    if (p_.tstat) {
      e += ke_target_ * eta_[0] + 0.5 * eta_mass_[0] * eta_dot_[0] * eta_dot_[0];
      for (int k = 1; k < p_.tchain; ++k) e += kt * eta_[k] + 0.5 * eta_mass_[k] * eta_dot_[k] * eta_dot_[k];
    }
    if (p_.pstat) {
      int pdim = 0;
      for (int d = 0; d < 3; ++d) pdim += p_.p_flag[d] ? 1 : 0;
      double lkt = 0.0;
      for (int d = 0; d < 3; ++d) {
        if (!p_.p_flag[d]) continue;
        e += 0.5 * omega_dot_[d] * omega_dot_[d] * omega_mass_[d] +
             p_hydro_ * (volume_ - vol0_) / (pdim * units::nktv2p);
        lkt += kt;
      }
      e += lkt * etap_[0] + 0.5 * etap_mass_[0] * etap_dot_[0] * etap_dot_[0];
      for (int k = 1; k < p_.pchain; ++k)
        e += kt * etap_[k] + 0.5 * etap_mass_[k] * etap_dot_[k] * etap_dot_[k];
    }
    v = e;
    return true;
  }

  void setup(FixContext& c) override {
    if (p_.pstat && vol0_ == 0.0) vol0_ = c.s.box.volume();  // LAMMPS's init: the first run's volume
    if (p_.pstat && !fixed_point_set_) {
      for (int d = 0; d < 3; ++d) fixed_point_[d] = 0.5 * (c.s.box.lo[d] + c.s.box.hi[d]);
      fixed_point_set_ = true;
    }
    // LAMMPS's compute temp counts its degrees of freedom at the run's set-up (dof_compute in setup) and
    // again at every evaluation only when dynamic (a dynamic group, or compute_modify dynamic/dof): atoms
    // fix deposit inserts later join the kinetic energy but not tdof, the target energy or the chain masses.
    if (p_.sllod) {
      // LAMMPS's FixNVTSllod::init; fix deform's init (before every setup) set the remap.
      if (c.s.box.vremap_group == 0)
        throw RunError("fix " + id_ +
                       " nvt/sllod needs a fix deform with remap v (LAMMPS: Using fix nvt/sllod with no fix "
                       "deform defined, or with inconsistent fix deform remap option)");
    } else {
      temp_->init(c.compute_context());
    }
    t_current_ = temperature(c);
    if (p_.tstat) {
      compute_temp_target(c);
    } else {
      // fix nph (LAMMPS's t0): the barostat's masses take ptemp, else the temperature of the first set-up,
      // kept through later runs and restart files.
      if (t0_ == 0.0) {
        t0_ = p_.p_temp > 0.0 ? p_.p_temp : t_current_;
        if (t0_ < 1e-6)
          throw RunError(
              "fix " + id_ +
              ": current temperature too close to zero, consider using ptemp setting (LAMMPS's error)");
      }
      t_target_ = t0_;
    }
    if (p_.pstat) {
      compute_press_target(c);
      pressure(c, false);
    }
    if (p_.tstat) {
      const double tf2 = p_.t_period * p_.t_period;  // 1/t_freq²
      eta_mass_[0] = tdof_ * units::boltz * t_target_ * tf2;
      for (int k = 1; k < p_.tchain; ++k) eta_mass_[k] = units::boltz * t_target_ * tf2;
      for (int k = 1; k < p_.tchain; ++k)
        eta_dotdot_[k] =
            (eta_mass_[k - 1] * eta_dot_[k - 1] * eta_dot_[k - 1] - units::boltz * t_target_) / eta_mass_[k];
    }
    if (p_.pstat) {
      const double kt = units::boltz * t_target_;
      const double nkt = (natoms_ + 1) * kt;
      double pfreq_max = 0.0;
      for (int d = 0; d < 3; ++d) {
        if (!p_.p_flag[d]) continue;
        const double pf = 1.0 / p_.p_period[d];
        omega_mass_[d] = nkt / (pf * pf);
        pfreq_max = std::max(pfreq_max, pf);
      }
      etap_mass_[0] = kt / (pfreq_max * pfreq_max);
      for (int k = 1; k < p_.pchain; ++k) etap_mass_[k] = kt / (pfreq_max * pfreq_max);
      for (int k = 1; k < p_.pchain; ++k)
        etap_dotdot_[k] = (etap_mass_[k - 1] * etap_dot_[k - 1] * etap_dot_[k - 1] - kt) / etap_mass_[k];
    }
  }

  void initial_integrate(FixContext& c) override {
    set_dt(c.s.dt);
    if (p_.pstat) nhc_press_integrate();
    if (p_.tstat) {
      compute_temp_target(c);
      nhc_temp_integrate(c);
    }
    if (p_.pstat) {
      pressure(c, true);  // the kinetic energy after the chain's scaling; t_current_ stays the chain's
      compute_press_target(c);
      nh_omega_dot();
      nh_v_press(c);
    }
    nve_v(c);
    if (p_.pstat) remap(c);
    nve_x(c);
    if (p_.pstat) remap(c);
  }

  void final_integrate(FixContext& c) override {
    set_dt(c.s.dt);
    nve_v(c);
    if (p_.pstat) nh_v_press(c);
    t_current_ = temperature(c);
    if (p_.pstat) {
      pressure(c, false);
      nh_omega_dot();
    }
    if (p_.tstat) nhc_temp_integrate(c);
    if (p_.pstat) nhc_press_integrate();
  }

  void save_state(FixStateMap& out) const override {
    out["eta"].assign(eta_, eta_ + kMaxChain + 1);
    out["eta_dot"].assign(eta_dot_, eta_dot_ + kMaxChain + 1);
    out["etap"].assign(etap_, etap_ + kMaxChain + 1);
    out["etap_dot"].assign(etap_dot_, etap_dot_ + kMaxChain + 1);
    out["omega_dot"].assign(omega_dot_, omega_dot_ + 3);
    out["fixed_point"].assign(fixed_point_, fixed_point_ + 3);
    out["fixed_point_set"] = {fixed_point_set_ ? 1.0 : 0.0};
    out["vol0"] = {vol0_};
    out["t0"] = {t0_};
  }
  void restore_state(const FixStateMap& in) override {
    auto get = [&](const char* k, double* dst, size_t n) {
      auto it = in.find(k);
      if (it != in.end())
        for (size_t i = 0; i < n && i < it->second.size(); ++i) dst[i] = it->second[i];
    };
    get("eta", eta_, kMaxChain + 1), get("eta_dot", eta_dot_, kMaxChain + 1);
    get("etap", etap_, kMaxChain + 1), get("etap_dot", etap_dot_, kMaxChain + 1);
    get("omega_dot", omega_dot_, 3), get("fixed_point", fixed_point_, 3), get("vol0", &vol0_, 1);
    get("t0", &t0_, 1);
    double f = 0;
    get("fixed_point_set", &f, 1);
    fixed_point_set_ = f != 0.0;
  }

 private:
  void set_dt(double dt) {
    dthalf_ = 0.5 * dt, dt4_ = 0.25 * dt, dt8_ = 0.125 * dt;
    // LAMMPS's tdrag_factor (tloop 1): the drag damps the chain velocities in the first half of the update.
    tdrag_ = p_.tstat ? 1.0 - (dt * (1.0 / p_.t_period) * p_.drag / 1) : 1.0;
    // pdrag_factor (ploop 1), from the fastest barostat frequency: it damps ω̇ and the barostat's chain.
    double pfreq_max = 0.0;
    for (int d = 0; d < 3; ++d)
      if (p_.pstat && p_.p_flag[d]) pfreq_max = std::max(pfreq_max, 1.0 / p_.p_period[d]);
    pdrag_ = 1.0 - dt * pfreq_max * p_.drag;
  }

  // nvt/sllod's temperature compute (c_ID_temp), which the script cannot delete while the fix exists.
  Compute& sllod_temperature(FixContext& c) {
    Compute* t = c.styles ? c.styles->compute(id_ + "_temp") : nullptr;
    if (!t) throw RunError("fix " + id_ + ": its temperature compute " + id_ + "_temp was deleted");
    return *t;
  }

  // The thermostat's temperature (LAMMPS's temperature->compute_scalar and tdof = temperature->dof): its
  // own compute temp on the fix group for nvt, on all atoms for npt (as LAMMPS's fix npt); nvt/sllod's
  // temp/deform compute ID_temp, which the script sees.
  double temperature(FixContext& c) {
    Compute& temp = p_.sllod ? sllod_temperature(c) : *temp_;
    const double t = temp.compute_scalar(c.compute_context());
    tdof_ = temp.dof();
    return t;
  }

  void compute_temp_target(FixContext& c) {
    t_target_ = p_.t_start + c.run_fraction() * (p_.t_stop - p_.t_start);
    ke_target_ = tdof_ * units::boltz * t_target_;
  }

  void compute_press_target(FixContext& c) {
    const double delta = c.run_fraction();
    p_hydro_ = 0.0;
    int pdim = 0;
    for (int d = 0; d < 3; ++d) {
      if (!p_.p_flag[d]) continue;
      p_target_[d] = p_.p_start[d] + delta * (p_.p_stop[d] - p_.p_start[d]);
      p_hydro_ += p_target_[d];
      ++pdim;
    }
    if (pdim > 0) p_hydro_ /= pdim;
  }

  // The current pressure as LAMMPS's compute pressure on the thermostat's temperature, coupled (couple()):
  // iso the scalar, from a fresh temperature (`fresh`) or the one just computed; aniso each dimension's
  // tensor component, with the kinetic tensor mtk reads. natoms_ (the barostat's) is the current count.
  void pressure(FixContext& c, bool fresh) {
    const ComputeContext cc = c.compute_context();
    volume_ = c.s.box.volume();
    natoms_ = static_cast<double>(c.comm.sum(static_cast<int64_t>(c.s.atoms.size())));
    if (p_.iso) {
      const double t = fresh ? temp_->compute_scalar(cc) : temp_->scalar();
      const double p = pressure_scalar(temp_->dof(), t, c.force->virial, volume_);
      p_current_[0] = p_current_[1] = p_current_[2] = p;
    } else {
      temp_->compute_vector(cc);
      double p[6];
      pressure_tensor(temp_->vector().data(), c.force->virial, volume_, p);
      for (int d = 0; d < 3; ++d) p_current_[d] = p[d], mvv_[d] = temp_->vector()[d];
    }
  }

  void nh_omega_dot() {
    int pdim = 0;
    for (int d = 0; d < 3; ++d) pdim += p_.p_flag[d] ? 1 : 0;
    double mtk1 = 0.0;
    if (p_.mtk) {
      if (p_.iso)
        mtk1 = tdof_ * units::boltz * t_current_;
      else
        for (int d = 0; d < 3; ++d)
          if (p_.p_flag[d]) mtk1 += mvv_[d];
      mtk1 /= pdim * natoms_;
    }
    for (int d = 0; d < 3; ++d) {
      if (!p_.p_flag[d]) continue;
      const double f =
          (p_current_[d] - p_hydro_) * volume_ / (omega_mass_[d] * units::nktv2p) + mtk1 / omega_mass_[d];
      omega_dot_[d] += f * dthalf_;
      omega_dot_[d] *= pdrag_;
    }
    mtk_term2_ = 0.0;
    if (p_.mtk) {
      for (int d = 0; d < 3; ++d)
        if (p_.p_flag[d]) mtk_term2_ += omega_dot_[d];
      if (pdim > 0) mtk_term2_ /= pdim * natoms_;
    }
  }

  void nh_v_press(FixContext& c) {
    double f[3];
    for (int d = 0; d < 3; ++d) f[d] = std::exp(-dt4_ * (omega_dot_[d] + mtk_term2_));
    Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      // LAMMPS applies the factor before and after the (triclinic) cross terms: twice on an orthogonal box.
      a.vx[i] *= f[0], a.vy[i] *= f[1], a.vz[i] *= f[2];
      a.vx[i] *= f[0], a.vy[i] *= f[1], a.vz[i] *= f[2];
    }
  }

  // Box and all atoms scaled about the fixed point by exp(½dt·ω̇) per barostatted dimension.
  void remap(FixContext& c) {
    Box& b = c.s.box;
    Atoms& a = c.s.atoms;
    double oldlo[3], oldprd[3];
    for (int d = 0; d < 3; ++d) oldlo[d] = b.lo[d], oldprd[d] = b.prd(d);
    for (int d = 0; d < 3; ++d) {
      if (!p_.p_flag[d]) continue;
      const double e = std::exp(dthalf_ * omega_dot_[d]);
      b.lo[d] = (oldlo[d] - fixed_point_[d]) * e + fixed_point_[d];
      b.hi[d] = (oldlo[d] + oldprd[d] - fixed_point_[d]) * e + fixed_point_[d];
    }
    double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
    for (int d = 0; d < 3; ++d) {
      if (!p_.p_flag[d]) continue;
      const double inv = 1.0 / oldprd[d], prd = b.prd(d);
      for (size_t i = 0; i < a.size(); ++i) pos[d][i] = b.lo[d] + ((pos[d][i] - oldlo[d]) * inv) * prd;
    }
  }

  void nve_v(FixContext& c) {
    Atoms& a = c.s.atoms;
    const double dtf = 0.5 * c.s.dt * units::ftm2v;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double dtfm = dtf / c.s.mass[a.type[i]];
      a.vx[i] += dtfm * a.fx[i], a.vy[i] += dtfm * a.fy[i], a.vz[i] += dtfm * a.fz[i];
    }
  }
  void nve_x(FixContext& c) {
    Atoms& a = c.s.atoms;
    const double dt = c.s.dt;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      a.x[i] += dt * a.vx[i], a.y[i] += dt * a.vy[i], a.z[i] += dt * a.vz[i];
    }
  }

  void nhc_temp_integrate(FixContext& c) {
    const int m = p_.tchain;
    // LAMMPS's eta_mass_flag: the chain masses follow a ramped target, keeping the thermostat's frequency.
    const double tf2 = p_.t_period * p_.t_period;
    eta_mass_[0] = tdof_ * units::boltz * t_target_ * tf2;
    for (int k = 1; k < m; ++k) eta_mass_[k] = units::boltz * t_target_ * tf2;
    double kecurrent = tdof_ * units::boltz * t_current_;
    eta_dotdot_[0] = eta_mass_[0] > 0 ? (kecurrent - ke_target_) / eta_mass_[0] : 0.0;
    for (int k = m - 1; k > 0; --k) {
      const double e = std::exp(-dt8_ * eta_dot_[k + 1]);
      eta_dot_[k] = (eta_dot_[k] * e + eta_dotdot_[k] * dt4_) * tdrag_ * e;
    }
    double e = std::exp(-dt8_ * eta_dot_[1]);
    eta_dot_[0] = (eta_dot_[0] * e + eta_dotdot_[0] * dt4_) * tdrag_ * e;
    const double factor = std::exp(-dthalf_ * eta_dot_[0]);
    Atoms& a = c.s.atoms;
    if (p_.sllod) {
      sllod_v_temp(c, factor);
    } else {
      for (size_t i = 0; i < a.size(); ++i) {
        if (!selected(c.s, i)) continue;
        a.vx[i] *= factor, a.vy[i] *= factor, a.vz[i] *= factor;
      }
    }
    t_current_ *= factor * factor;
    kecurrent = tdof_ * units::boltz * t_current_;
    eta_dotdot_[0] = eta_mass_[0] > 0 ? (kecurrent - ke_target_) / eta_mass_[0] : 0.0;
    for (int k = 0; k < m; ++k) eta_[k] += dthalf_ * eta_dot_[k];
    eta_dot_[0] = (eta_dot_[0] * e + eta_dotdot_[0] * dt4_) * e;
    for (int k = 1; k < m; ++k) {
      e = std::exp(-dt8_ * eta_dot_[k + 1]);
      eta_dotdot_[k] =
          (eta_mass_[k - 1] * eta_dot_[k - 1] * eta_dot_[k - 1] - units::boltz * t_target_) / eta_mass_[k];
      eta_dot_[k] = (eta_dot_[k] * e + eta_dotdot_[k] * dt4_) * e;
    }
  }

  // FixNVTSllod::nh_v_temp: the SLLOD term ½dt·(ḣ h⁻¹)·v with LAMMPS's upper-triangular product
  // (MathExtra::multiply_shape_shape of h_rate and h_inv, Voigt order xx yy zz yz xz xy: the tilt rates'
  // terms are zeros on an orthogonal box); it is of the whole velocity, the scaling of the thermal one (the
  // streaming velocity removed and put back).
  void sllod_v_temp(FixContext& c, double factor) {
    Compute& t = sllod_temperature(c);
    const Box& b = c.s.box;
    const double* r = b.h_rate;
    double hv[6];
    b.h_inv(hv);
    const double h_two[6] = {r[0] * hv[0],
                             r[1] * hv[1],
                             r[2] * hv[2],
                             r[1] * hv[3] + r[3] * hv[2],
                             r[0] * hv[4] + r[5] * hv[3] + r[4] * hv[2],
                             r[0] * hv[5] + r[5] * hv[1]};
    Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double du[3] = {h_two[0] * a.vx[i] + h_two[5] * a.vy[i] + h_two[4] * a.vz[i],
                            h_two[1] * a.vy[i] + h_two[3] * a.vz[i], h_two[2] * a.vz[i]};
      t.remove_bias(c.s, i);
      a.vx[i] = a.vx[i] * factor - dthalf_ * du[0];
      a.vy[i] = a.vy[i] * factor - dthalf_ * du[1];
      a.vz[i] = a.vz[i] * factor - dthalf_ * du[2];
      t.restore_bias(c.s, i);
    }
  }

  void nhc_press_integrate() {
    const int m = p_.pchain;
    const double kt = units::boltz * t_target_;
    int pdof = 0;
    auto ke = [&]() {
      double k = 0;
      for (int d = 0; d < 3; ++d)
        if (p_.p_flag[d]) k += omega_mass_[d] * omega_dot_[d] * omega_dot_[d];
      return k;
    };
    for (int d = 0; d < 3; ++d) pdof += p_.p_flag[d] ? 1 : 0;
    const double lkt = p_.iso ? kt : pdof * kt;
    etap_dotdot_[0] = (ke() - lkt) / etap_mass_[0];
    for (int k = m - 1; k > 0; --k) {
      const double e = std::exp(-dt8_ * etap_dot_[k + 1]);
      etap_dot_[k] = (etap_dot_[k] * e + etap_dotdot_[k] * dt4_) * pdrag_ * e;
    }
    double e = std::exp(-dt8_ * etap_dot_[1]);
    etap_dot_[0] = (etap_dot_[0] * e + etap_dotdot_[0] * dt4_) * pdrag_ * e;
    for (int k = 0; k < m; ++k) etap_[k] += dthalf_ * etap_dot_[k];
    const double f = std::exp(-dthalf_ * etap_dot_[0]);
    for (int d = 0; d < 3; ++d)
      if (p_.p_flag[d]) omega_dot_[d] *= f;
    etap_dotdot_[0] = (ke() - lkt) / etap_mass_[0];
    etap_dot_[0] = (etap_dot_[0] * e + etap_dotdot_[0] * dt4_) * e;
    for (int k = 1; k < m; ++k) {
      e = std::exp(-dt8_ * etap_dot_[k + 1]);
      etap_dotdot_[k] = (etap_mass_[k - 1] * etap_dot_[k - 1] * etap_dot_[k - 1] - kt) / etap_mass_[k];
      etap_dot_[k] = (etap_dot_[k] * e + etap_dotdot_[k] * dt4_) * e;
    }
  }

  Params p_;
  std::unique_ptr<Compute> temp_;  // LAMMPS's ID_temp (md/core/kinetic_energy.hpp: the one kinetic sum)
  double eta_[kMaxChain + 1], eta_dot_[kMaxChain + 1], eta_dotdot_[kMaxChain + 1], eta_mass_[kMaxChain + 1];
  double etap_[kMaxChain + 1], etap_dot_[kMaxChain + 1], etap_dotdot_[kMaxChain + 1],
      etap_mass_[kMaxChain + 1];
  double omega_dot_[3] = {0, 0, 0}, omega_mass_[3] = {0, 0, 0};
  double p_current_[3] = {0, 0, 0}, p_target_[3] = {0, 0, 0}, p_hydro_ = 0.0;
  double fixed_point_[3] = {0, 0, 0};
  bool fixed_point_set_ = false;
  double vol0_ = 0.0;  // the volume the barostat's P·ΔV energy counts from
  double t0_ = 0.0;    // nph: the barostat's temperature (LAMMPS's t0), set at the first set-up
  double mvv_[3] = {0, 0, 0};
  double t_current_ = 0, t_target_ = 0, ke_target_ = 0, tdof_ = 0, natoms_ = 0, volume_ = 0, mtk_term2_ = 0;
  double dthalf_ = 0, dt4_ = 0, dt8_ = 0, tdrag_ = 1.0, pdrag_ = 1.0;
};

}  // namespace

static std::unique_ptr<Fix> make_fix_nh(const FixArgs& f) {
  const std::string& id = f.id;
  const uint32_t group = f.group;
  const std::string& style = f.style;
  io::ArgCursor& a = f.a;
  FixNH::Params p;
  p.pstat = style == "npt" || style == "nph";
  p.tstat = style != "nph";
  p.sllod = style == "nvt/sllod";
  if (p.sllod) p.tchain = 1;  // LAMMPS's FixNVTSllod: mtchain 1 unless tchain is given
  bool have_t = false, have_p = false;
  if (a.done())
    a.fail("fix " + style + " needs " + (p.tstat ? "'temp Tstart Tstop Tdamp'" : "") +
           (p.tstat && p.pstat ? " and " : "") + (p.pstat ? "'iso|aniso Pstart Pstop Pdamp'" : ""));
  while (!a.done()) {
    const std::string k =
        a.choice("a fix " + style + " keyword", {"temp", "iso", "aniso", "x", "y", "z", "tchain", "pchain",
                                                 "mtk", "tloop", "ploop", "drag", "dilate", "ptemp"});
    if (k == "temp") {
      if (!p.tstat)
        a.fail("fix nph takes no 'temp' (LAMMPS: Temperature control can not be used with fix nph)");
      p.t_start = a.positive("Tstart (K)");
      p.t_stop = a.positive("Tstop (K)");
      p.t_period = a.positive("Tdamp (ps)");
      have_t = true;
    } else if (k == "iso" || k == "aniso" || k == "x" || k == "y" || k == "z") {
      if (!p.pstat) a.fail("fix " + style + " takes no pressure keyword '" + k + "' (use fix npt)");
      const double p0 = a.real("Pstart (bar)"), p1 = a.real("Pstop (bar)"), pd = a.positive("Pdamp (ps)");
      const int lo = k == "y" ? 1 : k == "z" ? 2 : 0, hi = (k == "x") ? 0 : (k == "y") ? 1 : 2;
      for (int d = lo; d <= hi; ++d)
        p.p_start[d] = p0, p.p_stop[d] = p1, p.p_period[d] = pd, p.p_flag[d] = true;
      p.iso = k == "iso";
      have_p = true;
    } else if (k == "tchain" || k == "pchain") {
      const int n = static_cast<int>(a.integer(k, 1, kMaxChain));
      (k == "tchain" ? p.tchain : p.pchain) = n;
    } else if (k == "mtk") {
      p.mtk = a.yes_no("mtk");
    } else if (k == "tloop" || k == "ploop") {
      if (a.integer(k, 1, 1) != 1) a.fail(k + " other than 1 is not supported");
    } else if (k == "ptemp") {
      p.p_temp = a.positive("ptemp (K)");
    } else if (k == "drag") {
      p.drag = a.non_negative("drag");
    } else {
      a.choice("dilate", {"all"});
    }
  }
  if (p.tstat && !have_t) a.fail("fix " + style + " needs 'temp Tstart Tstop Tdamp'");
  if (p.pstat && !have_p) a.fail("fix " + style + " needs 'iso', 'aniso' or 'x/y/z Pstart Pstop Pdamp'");
  // LAMMPS's fix nvt computes the temperature of its group, fix npt of all atoms (the pressure's).
  const FixArgs temp_args{f.id, p.pstat ? 1u : f.group, f.style, f.a, f.ctx};
  return std::make_unique<FixNH>(id, group, style, p, make_own_temperature(temp_args));
}

WMD_FIX_STYLE("nvt", make_fix_nh)
WMD_FIX_STYLE("npt", make_fix_nh)
WMD_FIX_STYLE("nph", make_fix_nh)
WMD_FIX_STYLE("nvt/sllod", make_fix_nh)

}  // namespace wmd::md
