// fix nvt, npt and nph (npt without the thermostat: the barostat alone, its masses at ptemp or the first
// set-up's temperature): Nosé–Hoover chains on the particles (and on the barostat), Martyna–Tobias–Klein
// barostat — the integration scheme of LAMMPS FixNH (Shinoda, Shiga, Mikami, PRB 69, 134103 (2004);
// Tuckerman et al., J. Phys. A 39, 5629 (2006)). LAMMPS's three barostat styles: ISO (couple xyz: one
// degree of freedom, the scalar pressure), ANISO (the lengths, each its own or coupled tensor component) and
// TRICLINIC (a tilt keyword or `tri` on a triclinic box: the lengths and the tilts, six degrees of freedom,
// the off-diagonal pressure driving ω̇ yz, xz, xy); a deviatoric target (x/y/z/yz/xz/xy keywords) adds
// LAMMPS's strain force h·σ·hᵀ. The box and the atoms are remapped in fractional coordinates (LAMMPS's
// FixNH::remap: the upper-triangular h advanced in its time-symmetric order, tilts scaled with their lengths
// where scalexy/scalexz/scaleyz), and a tilt beyond (0.5 + 0.1) of its length flips (LAMMPS's pre_exchange).
// fix nvt/sllod: fix nvt on the thermal velocities of a box fix deform (remap v) deforms, as LAMMPS's
// FixNVTSllod: its temperature is the compute temp/deform `ID_temp` it defines on its group (the script can
// read c_ID_temp), the chain is 1 long unless tchain is given, and the thermostat's half-step scales each
// atom's thermal velocity and subtracts the SLLOD term ½dt·(ḣ h⁻¹)·v (of the whole velocity, as lmp 2021).
#include <algorithm>
#include <cmath>

#include "base/units.hpp"
#include "md/core/boundaries.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

constexpr int kMaxChain = 16;

class FixNH : public Fix {
 public:
  enum class PStyle { iso, aniso, triclinic };  // LAMMPS's pstyle
  enum class Couple { none, xyz, xy, yz, xz };  // LAMMPS's pcouple
  struct Params {
    bool tstat = true, pstat = false;
    PStyle pstyle = PStyle::iso;
    Couple pcouple = Couple::none;
    double t_start = 0, t_stop = 0, t_period = 0;
    double p_temp = 0;  // ptemp: the barostat's temperature without a thermostat (0: the first set-up's)
    // Components in LAMMPS's Voigt order: x y z yz xz xy.
    double p_start[6] = {0, 0, 0, 0, 0, 0}, p_stop[6] = {0, 0, 0, 0, 0, 0}, p_period[6] = {0, 0, 0, 0, 0, 0};
    bool p_flag[6] = {false, false, false, false, false, false};
    bool scaleyz = false, scalexz = false, scalexy = false;  // tilts that follow their lengths
    bool deviatoric = false;                                 // an x/y/z/yz/xz/xy keyword (LAMMPS's flag)
    int64_t nreset = 0;                                      // nreset: the reference box's reset interval
    bool flip = true;                                        // flip yes|no
    bool pre_exchange = false;                               // LAMMPS's pre_exchange_flag: flips possible
    double fixedpoint[3] = {0, 0, 0};                        // centre of the box at the definition
    std::string dilate;                                      // dilate GROUP (empty: all)
    int tchain = 3, pchain = 3;
    bool mtk = true;
    double drag = 0.0;
    bool sllod = false;
    bool triclinic() const { return pstyle == PStyle::triclinic; }
  };
  FixNH(const std::string& id, uint32_t group, const std::string& style, const Params& p,
        std::unique_ptr<Compute> temp)
      : Fix(id, style, group), p_(p), temp_(std::move(temp)) {
    for (int k = 0; k <= kMaxChain; ++k) eta_[k] = eta_dot_[k] = eta_dotdot_[k] = eta_mass_[k] = 0.0;
    for (int k = 0; k <= kMaxChain; ++k) etap_[k] = etap_dot_[k] = etap_dotdot_[k] = etap_mass_[k] = 0.0;
    for (int d = 0; d < 3; ++d) fixed_point_[d] = p_.fixedpoint[d];
  }
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool integrates() const override { return true; }
  bool changes_box() const override { return p_.pstat; }
  unsigned box_components() const override {
    unsigned bits = 0;
    for (int d = 0; d < 6; ++d) bits |= p_.pstat && p_.p_flag[d] ? 1u << d : 0u;
    return bits;
  }
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
      if (p_.triclinic()) {
        for (int q = 3; q < 6; ++q) {
          if (!p_.p_flag[q]) continue;
          e += 0.5 * omega_dot_[q] * omega_dot_[q] * omega_mass_[q];
          lkt += kt;
        }
      }
      e += lkt * etap_[0] + 0.5 * etap_mass_[0] * etap_dot_[0] * etap_dot_[0];
      for (int k = 1; k < p_.pchain; ++k)
        e += kt * etap_[k] + 0.5 * etap_mass_[k] * etap_dot_[k] * etap_dot_[k];
      if (p_.deviatoric) e += strain_energy(box_);
    }
    v = e;
    return true;
  }

  // LAMMPS's FixNH::init: the dilate group, and the reference volume and inverse box of the first run.
  void init(FixContext& c) override {
    box_ = &c.s.box;
    if (!p_.pstat) return;
    dilate_bit_ = 0;
    if (!p_.dilate.empty()) {
      dilate_bit_ = c.s.group_bit(p_.dilate);
      if (dilate_bit_ == 0)
        throw RunError("fix " + id_ + ": its dilate group " + p_.dilate +
                       " no longer exists (LAMMPS: Fix nvt/npt/nph dilate group ID does not exist)");
    }
    if (vol0_ == 0.0) {
      vol0_ = c.s.box.volume();
      c.s.box.h_inv(h0_inv_);
    }
  }

  void setup(FixContext& c) override {
    box_ = &c.s.box;
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
      for (int q = 0; q < 6; ++q) {
        if (!p_.p_flag[q] || (q >= 3 && !p_.triclinic())) continue;
        const double pf = 1.0 / p_.p_period[q];
        omega_mass_[q] = nkt / (pf * pf);
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
      nh_omega_dot(c.s.box);
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
      nh_omega_dot(c.s.box);
    }
    if (p_.tstat) nhc_temp_integrate(c);
    if (p_.pstat) nhc_press_integrate();
  }

  // LAMMPS's FixNH::pre_exchange (flip yes, a tilt controlled or non-zero at the definition): a tilt beyond
  // (0.5 + 0.1) of its length (the margin keeps an oscillating tilt from flipping back at once) moves by one
  // box vector — yz first, which carries xz along by xy, then xz and xy — along periodic directions; the
  // atoms' images follow and every atom is remapped into the new box, and the step re-neighbours.
  bool pre_exchange(FixContext& c) override {
    if (!p_.pstat || !p_.pre_exchange) return false;
    Box& b = c.s.box;
    const double xprd = b.prd(0), yprd = b.prd(1);
    constexpr double kDeltaFlip = 0.1;  // LAMMPS's DELTAFLIP
    const double xtiltmax = (0.5 + kDeltaFlip) * xprd, ytiltmax = (0.5 + kDeltaFlip) * yprd;
    int flipxy = 0, flipxz = 0, flipyz = 0;
    if (b.periodic(1)) {
      if (b.yz < -ytiltmax) {
        b.yz += yprd, b.xz += b.xy, flipyz = 1;
      } else if (b.yz >= ytiltmax) {
        b.yz -= yprd, b.xz -= b.xy, flipyz = -1;
      }
    }
    if (b.periodic(0)) {
      if (b.xz < -xtiltmax) {
        b.xz += xprd, flipxz = 1;
      } else if (b.xz >= xtiltmax) {
        b.xz -= xprd, flipxz = -1;
      }
      if (b.xy < -xtiltmax) {
        b.xy += xprd, flipxy = 1;
      } else if (b.xy >= xtiltmax) {
        b.xy -= xprd, flipxy = -1;
      }
    }
    if (!flipxy && !flipxz && !flipyz) return false;
    flip_atoms(c.s, flipxy, flipxz, flipyz);
    return true;
  }

  void save_state(FixStateMap& out) const override {
    out["eta"].assign(eta_, eta_ + kMaxChain + 1);
    out["eta_dot"].assign(eta_dot_, eta_dot_ + kMaxChain + 1);
    out["etap"].assign(etap_, etap_ + kMaxChain + 1);
    out["etap_dot"].assign(etap_dot_, etap_dot_ + kMaxChain + 1);
    out["omega_dot"].assign(omega_dot_, omega_dot_ + 6);
    out["fixed_point"].assign(fixed_point_, fixed_point_ + 3);
    out["vol0"] = {vol0_};
    out["h0_inv"].assign(h0_inv_, h0_inv_ + 6);  // the deviatoric target's reference box (LAMMPS's restart)
    out["t0"] = {t0_};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use (issue 46): every array of the length save_state writes (the chains kMaxChain + 1,
    // the strain rates and reference inverse box 6, the fixed point 3), every value finite, the reference
    // volume and temperature not negative (0 = not yet set); a key absent keeps the fix's value.
    const FixStateReader r(in, *this);
    constexpr size_t kChain = kMaxChain + 1;
    const std::pair<const char*, size_t> shape[] = {
        {"eta", kChain},      {"eta_dot", kChain}, {"etap", kChain},
        {"etap_dot", kChain}, {"omega_dot", 6},    {"fixed_point", 3},
        {"vol0", 1},          {"h0_inv", 6},       {"t0", 1}};
    // The chain and strain-rate velocities scale the velocities and box by exp(±dt·rate/2) every step: a
    // rate beyond 10^6 per damping period is one no run kept finite (at dt ≥ period/100 that factor is
    // beyond a double's range), so it is refused rather than run into a non-finite step.
    double pperiod = 0.0;
    for (int q = 0; q < 6; ++q)
      if (p_.pstat && p_.p_flag[q] && (q < 3 || p_.triclinic()))
        pperiod = pperiod == 0.0 ? p_.p_period[q] : std::min(pperiod, p_.p_period[q]);
    const double tperiod = p_.tstat ? p_.t_period : 0.0;
    for (const auto& [key, n] : shape) {
      const std::vector<double>* v = r.sized_finite(key, {n});
      if (!v) continue;
      if (n == 1) r.at_least(*v, 0, key, 0.0);
      const std::string k = key;
      const double period = k == "eta_dot" ? tperiod : k == "etap_dot" || k == "omega_dot" ? pperiod : 0.0;
      if (period > 0.0)
        for (size_t i = 0; i < v->size(); ++i)
          if (std::abs((*v)[i]) * period > 1e6)
            r.fail(key, "value " + std::to_string(i) + " is beyond 10^6 per damping period");
    }
    auto get = [&](const char* k, double* dst) {
      if (const std::vector<double>* v = r.find(k)) std::copy(v->begin(), v->end(), dst);
    };
    get("eta", eta_), get("eta_dot", eta_dot_), get("etap", etap_), get("etap_dot", etap_dot_);
    get("omega_dot", omega_dot_), get("fixed_point", fixed_point_), get("vol0", &vol0_);
    get("h0_inv", h0_inv_), get("t0", &t0_);
  }

 private:
  void set_dt(double dt) {
    dthalf_ = 0.5 * dt, dt4_ = 0.25 * dt, dt8_ = 0.125 * dt;
    // LAMMPS's tdrag_factor (tloop 1): the drag damps the chain velocities in the first half of the update.
    tdrag_ = p_.tstat ? 1.0 - (dt * (1.0 / p_.t_period) * p_.drag / 1) : 1.0;
    // pdrag_factor (ploop 1), from the fastest barostat frequency: it damps ω̇ and the barostat's chain.
    double pfreq_max = 0.0;
    for (int q = 0; q < 6; ++q)
      if (p_.pstat && p_.p_flag[q] && (q < 3 || p_.triclinic()))
        pfreq_max = std::max(pfreq_max, 1.0 / p_.p_period[q]);
    pdrag_ = 1.0 - dt * pfreq_max * p_.drag;
  }

  // After a flip (LAMMPS's Domain::image_flip, then Domain::remap of each atom and the x2lamda/lamda2x of
  // the migration that follows, term by term): the images keep every atom's unwrapped position in the new
  // basis, and each atom is wrapped into the new box in fractional coordinates.
  void flip_atoms(State& s, int m, int n, int p) const { flip_images(s.box, s.atoms, m, n, p, "fix " + id_); }

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
    if (p_.triclinic())
      for (int q = 3; q < 6; ++q) p_target_[q] = p_.p_start[q] + delta * (p_.p_stop[q] - p_.p_start[q]);
    if (p_.deviatoric) compute_sigma(c);
  }

  // LAMMPS's compute_sigma (whenever the target changes): every nreset steps of the run the reference volume
  // and inverse box are reset to the current box; sigma = vol0·h0⁻¹·(P_target − P_hydro)·h0⁻ᵀ, its upper
  // triangle in Voigt order, term by term as LAMMPS.
  void compute_sigma(FixContext& c) {
    if (p_.nreset > 0 && (c.s.step - c.run_begin) % p_.nreset == 0) {
      vol0_ = c.s.box.volume();
      c.s.box.h_inv(h0_inv_);
    }
    const double* h = h0_inv_;
    const double* t = p_target_;
    const double ph = p_hydro_, v0 = vol0_;
    sigma_[0] = v0 * (h[0] * ((t[0] - ph) * h[0] + t[5] * h[5] + t[4] * h[4]) +
                      h[5] * (t[5] * h[0] + (t[1] - ph) * h[5] + t[3] * h[4]) +
                      h[4] * (t[4] * h[0] + t[3] * h[5] + (t[2] - ph) * h[4]));
    sigma_[1] = v0 * (h[1] * ((t[1] - ph) * h[1] + t[3] * h[3]) + h[3] * (t[3] * h[1] + (t[2] - ph) * h[3]));
    sigma_[2] = v0 * (h[2] * ((t[2] - ph) * h[2]));
    sigma_[3] = v0 * (h[1] * (t[3] * h[2]) + h[3] * ((t[2] - ph) * h[2]));
    sigma_[4] = v0 * (h[0] * (t[4] * h[2]) + h[5] * (t[3] * h[2]) + h[4] * ((t[2] - ph) * h[2]));
    sigma_[5] = v0 * (h[0] * (t[5] * h[1] + t[4] * h[3]) + h[5] * ((t[1] - ph) * h[1] + t[3] * h[3]) +
                      h[4] * (t[3] * h[1] + (t[2] - ph) * h[3]));
  }

  // LAMMPS's h (Voigt: xx yy zz yz xz xy) of box b.
  static void h_of(const Box& b, double h[6]) {
    h[0] = b.prd(0), h[1] = b.prd(1), h[2] = b.prd(2), h[3] = b.yz, h[4] = b.xz, h[5] = b.xy;
  }

  // LAMMPS's compute_strain_energy: ½ Tr(sigma·h·hᵀ) in eV.
  double strain_energy(const Box* b) const {
    if (!b) return 0.0;
    double h[6];
    h_of(*b, h);
    const double* sg = sigma_;
    const double d0 = sg[0] * (h[0] * h[0] + h[5] * h[5] + h[4] * h[4]) +
                      sg[5] * (h[1] * h[5] + h[3] * h[4]) + sg[4] * (h[2] * h[4]);
    const double d1 =
        sg[5] * (h[5] * h[1] + h[4] * h[3]) + sg[1] * (h[1] * h[1] + h[3] * h[3]) + sg[3] * (h[2] * h[3]);
    const double d2 = sg[4] * (h[4] * h[2]) + sg[3] * (h[3] * h[2]) + sg[2] * (h[2] * h[2]);
    return 0.5 * (d0 + d1 + d2) / units::nktv2p;
  }

  // LAMMPS's compute_deviatoric: the barostat's strain force h·sigma·hᵀ (upper triangle, Voigt order).
  void compute_deviatoric(const Box& b) {
    double h[6];
    h_of(b, h);
    const double* sg = sigma_;
    fdev_[0] = h[0] * (sg[0] * h[0] + sg[5] * h[5] + sg[4] * h[4]) +
               h[5] * (sg[5] * h[0] + sg[1] * h[5] + sg[3] * h[4]) +
               h[4] * (sg[4] * h[0] + sg[3] * h[5] + sg[2] * h[4]);
    fdev_[1] = h[1] * (sg[1] * h[1] + sg[3] * h[3]) + h[3] * (sg[3] * h[1] + sg[2] * h[3]);
    fdev_[2] = h[2] * (sg[2] * h[2]);
    fdev_[3] = h[1] * (sg[3] * h[2]) + h[3] * (sg[2] * h[2]);
    fdev_[4] = h[0] * (sg[4] * h[2]) + h[5] * (sg[3] * h[2]) + h[4] * (sg[2] * h[2]);
    fdev_[5] = h[0] * (sg[5] * h[1] + sg[4] * h[3]) + h[5] * (sg[1] * h[1] + sg[3] * h[3]) +
               h[4] * (sg[3] * h[1] + sg[2] * h[3]);
  }

  // The current pressure as LAMMPS's compute pressure on the thermostat's temperature, coupled (couple()):
  // iso the scalar, from a fresh temperature (`fresh`) or the one just computed; aniso and triclinic the
  // tensor's components (averaged over coupled dimensions; the off-diagonal ones in Voigt order), with the
  // kinetic tensor mtk reads. natoms_ (the barostat's) is the current count.
  void pressure(FixContext& c, bool fresh) {
    const ComputeContext cc = c.compute_context();
    volume_ = c.s.box.volume();
    natoms_ = static_cast<double>(c.comm.sum(static_cast<int64_t>(c.s.atoms.size())));
    if (p_.pstyle == PStyle::iso) {
      const double t = fresh ? temp_->compute_scalar(cc) : temp_->scalar();
      const double p = pressure_scalar(temp_->dof(), t, c.force->virial, volume_);
      p_current_[0] = p_current_[1] = p_current_[2] = p;
    } else {
      temp_->compute_vector(cc);
      double p[6];
      pressure_tensor(temp_->vector().data(), c.force->virial, volume_, p);
      for (int d = 0; d < 3; ++d) p_current_[d] = p[d], mvv_[d] = temp_->vector()[d];
      switch (p_.pcouple) {
        case Couple::xyz:
          p_current_[0] = p_current_[1] = p_current_[2] = 1.0 / 3.0 * (p[0] + p[1] + p[2]);
          break;
        case Couple::xy:
          p_current_[0] = p_current_[1] = 0.5 * (p[0] + p[1]);
          break;
        case Couple::yz:
          p_current_[1] = p_current_[2] = 0.5 * (p[1] + p[2]);
          break;
        case Couple::xz:
          p_current_[0] = p_current_[2] = 0.5 * (p[0] + p[2]);
          break;
        case Couple::none:
          break;
      }
      if (p_.triclinic()) p_current_[3] = p[5], p_current_[4] = p[4], p_current_[5] = p[3];
    }
    const int n = p_.triclinic() ? 6 : 3;
    for (int q = 0; q < n; ++q)
      if (!std::isfinite(p_current_[q]))
        throw RunError("fix " + id_ + ": Non-numeric pressure - simulation unstable (LAMMPS's error)");
  }

  void nh_omega_dot(const Box& b) {
    int pdim = 0;
    for (int d = 0; d < 3; ++d) pdim += p_.p_flag[d] ? 1 : 0;
    if (p_.deviatoric) compute_deviatoric(b);
    double mtk1 = 0.0;
    if (p_.mtk) {
      if (p_.pstyle == PStyle::iso)
        mtk1 = tdof_ * units::boltz * t_current_;
      else
        for (int d = 0; d < 3; ++d)
          if (p_.p_flag[d]) mtk1 += mvv_[d];
      mtk1 /= pdim * natoms_;
    }
    for (int d = 0; d < 3; ++d) {
      if (!p_.p_flag[d]) continue;
      double f =
          (p_current_[d] - p_hydro_) * volume_ / (omega_mass_[d] * units::nktv2p) + mtk1 / omega_mass_[d];
      if (p_.deviatoric) f -= fdev_[d] / (omega_mass_[d] * units::nktv2p);
      omega_dot_[d] += f * dthalf_;
      omega_dot_[d] *= pdrag_;
    }
    mtk_term2_ = 0.0;
    if (p_.mtk) {
      for (int d = 0; d < 3; ++d)
        if (p_.p_flag[d]) mtk_term2_ += omega_dot_[d];
      if (pdim > 0) mtk_term2_ /= pdim * natoms_;
    }
    if (p_.triclinic()) {
      for (int q = 3; q < 6; ++q) {
        if (!p_.p_flag[q]) continue;
        double f = p_current_[q] * volume_ / (omega_mass_[q] * units::nktv2p);
        if (p_.deviatoric) f -= fdev_[q] / (omega_mass_[q] * units::nktv2p);
        omega_dot_[q] += f * dthalf_;
        omega_dot_[q] *= pdrag_;
      }
    }
  }

  void nh_v_press(FixContext& c) {
    double f[3];
    for (int d = 0; d < 3; ++d) f[d] = std::exp(-dt4_ * (omega_dot_[d] + mtk_term2_));
    const bool tri = p_.triclinic();
    const double* od = omega_dot_;
    Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      // LAMMPS applies the factor before and after the triclinic cross terms (ω̇ xy, xz on vx; yz on vy).
      a.vx[i] *= f[0], a.vy[i] *= f[1], a.vz[i] *= f[2];
      if (tri) {
        a.vx[i] += -dthalf_ * (a.vy[i] * od[5] + a.vz[i] * od[4]);
        a.vy[i] += -dthalf_ * a.vz[i] * od[3];
      }
      a.vx[i] *= f[0], a.vy[i] *= f[1], a.vz[i] *= f[2];
    }
  }

  // LAMMPS's FixNH::remap, half a step: the atoms (all, or the dilate group) to fractional coordinates of the
  // old box; the tilts advanced by ḣ = ω̇·h in LAMMPS's time-symmetric order (half the off-diagonal update,
  // the lengths scaled about the fixed point by exp(½dt·ω̇) with the scaled tilts, the other half; h's
  // diagonal stays the old lengths throughout, as LAMMPS's domain->h until set_global_box); the atoms back
  // from the new box.
  void remap(FixContext& c) {
    Box& b = c.s.box;
    Atoms& a = c.s.atoms;
    const Box old = b;
    const uint32_t bit = dilate_bit_;
    for (size_t i = 0; i < a.size(); ++i) {
      if (bit && !(a.mask[i] & bit)) continue;
      double x[3] = {a.x[i], a.y[i], a.z[i]};
      old.to_lamda(x, x);
      a.x[i] = x[0], a.y[i] = x[1], a.z[i] = x[2];
    }
    double h[6];
    h_of(old, h);
    const double dto = dthalf_, dto2 = dto / 2.0, dto4 = dto / 4.0, dto8 = dto / 8.0;
    const double* od = omega_dot_;
    const bool* pf = p_.p_flag;
    auto tilts_half = [&]() {
      if (pf[4]) {
        const double e = std::exp(dto8 * od[0]);
        h[4] *= e, h[4] += dto4 * (od[5] * h[3] + od[4] * h[2]), h[4] *= e;
      }
      if (pf[3]) {
        const double e = std::exp(dto4 * od[1]);
        h[3] *= e, h[3] += dto2 * (od[3] * h[2]), h[3] *= e;
      }
      if (pf[5]) {
        const double e = std::exp(dto4 * od[0]);
        h[5] *= e, h[5] += dto2 * (od[5] * h[1]), h[5] *= e;
      }
      if (pf[4]) {
        const double e = std::exp(dto8 * od[0]);
        h[4] *= e, h[4] += dto4 * (od[5] * h[3] + od[4] * h[2]), h[4] *= e;
      }
    };
    if (p_.triclinic()) tilts_half();
    for (int d = 0; d < 3; ++d) {
      if (!pf[d]) continue;
      const double oldlo = b.lo[d], oldhi = b.hi[d];
      const double e = std::exp(dto * od[d]);
      b.lo[d] = (oldlo - fixed_point_[d]) * e + fixed_point_[d];
      b.hi[d] = (oldhi - fixed_point_[d]) * e + fixed_point_[d];
      if (d == 1 && p_.scalexy) h[5] *= e;
      if (d == 2 && p_.scalexz) h[4] *= e;
      if (d == 2 && p_.scaleyz) h[3] *= e;
    }
    if (p_.triclinic()) tilts_half();
    b.yz = h[3], b.xz = h[4], b.xy = h[5];
    constexpr double kTiltMax = 1.5;  // LAMMPS's TILTMAX: the most a tilt may reach in one step
    if (b.yz < -kTiltMax * b.prd(1) || b.yz > kTiltMax * b.prd(1) || b.xz < -kTiltMax * b.prd(0) ||
        b.xz > kTiltMax * b.prd(0) || b.xy < -kTiltMax * b.prd(0) || b.xy > kTiltMax * b.prd(0))
      throw RunError("fix " + id_ +
                     ": Fix npt/nph has tilted box too far in one step - periodic cell is too far from "
                     "equilibrium state (LAMMPS's error)");
    for (size_t i = 0; i < a.size(); ++i) {
      if (bit && !(a.mask[i] & bit)) continue;
      double x[3] = {a.x[i], a.y[i], a.z[i]};
      b.from_lamda(x, x);
      a.x[i] = x[0], a.y[i] = x[1], a.z[i] = x[2];
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
    const int nq = p_.triclinic() ? 6 : 3;  // the tilts' degrees of freedom count with TRICLINIC only
    auto ke = [&]() {
      double k = 0;
      for (int q = 0; q < nq; ++q)
        if (p_.p_flag[q]) k += omega_mass_[q] * omega_dot_[q] * omega_dot_[q];
      return k;
    };
    for (int q = 0; q < nq; ++q) pdof += p_.p_flag[q] ? 1 : 0;
    const double lkt = p_.pstyle == PStyle::iso ? kt : pdof * kt;
    etap_dotdot_[0] = (ke() - lkt) / etap_mass_[0];
    for (int k = m - 1; k > 0; --k) {
      const double e = std::exp(-dt8_ * etap_dot_[k + 1]);
      etap_dot_[k] = (etap_dot_[k] * e + etap_dotdot_[k] * dt4_) * pdrag_ * e;
    }
    double e = std::exp(-dt8_ * etap_dot_[1]);
    etap_dot_[0] = (etap_dot_[0] * e + etap_dotdot_[0] * dt4_) * pdrag_ * e;
    for (int k = 0; k < m; ++k) etap_[k] += dthalf_ * etap_dot_[k];
    const double f = std::exp(-dthalf_ * etap_dot_[0]);
    for (int q = 0; q < nq; ++q)
      if (p_.p_flag[q]) omega_dot_[q] *= f;
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
  double omega_dot_[6] = {0, 0, 0, 0, 0, 0}, omega_mass_[6] = {0, 0, 0, 0, 0, 0};
  double p_current_[6] = {0, 0, 0, 0, 0, 0}, p_target_[6] = {0, 0, 0, 0, 0, 0}, p_hydro_ = 0.0;
  double sigma_[6] = {0, 0, 0, 0, 0, 0}, fdev_[6] = {0, 0, 0, 0, 0, 0};  // deviatoric target
  double h0_inv_[6] = {0, 0, 0, 0, 0, 0};  // LAMMPS's h0_inv: the reference box's inverse (deviatoric)
  double fixed_point_[3] = {0, 0, 0};
  uint32_t dilate_bit_ = 0;   // dilate GROUP's bit (0: all atoms)
  const Box* box_ = nullptr;  // the box the scalar's strain energy reads (set at init)
  double vol0_ = 0.0;         // the volume the barostat's P·ΔV energy counts from
  double t0_ = 0.0;           // nph: the barostat's temperature (LAMMPS's t0), set at the first set-up
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
  using PStyle = FixNH::PStyle;
  using Couple = FixNH::Couple;
  FixNH::Params p;
  p.pstat = style == "npt" || style == "nph";
  p.tstat = style != "nph";
  p.sllod = style == "nvt/sllod";
  if (p.sllod) p.tchain = 1;  // LAMMPS's FixNVTSllod: mtchain 1 unless tchain is given
  const Box& box = f.ctx.s.box;
  // LAMMPS's constructor: a non-zero tilt follows its length (scalexy, scalexz, scaleyz) unless it is
  // controlled; the fixed point is the box centre at the definition.
  p.scalexy = box.periodic(1) && box.xy != 0.0;
  p.scaleyz = box.periodic(2) && box.yz != 0.0;
  p.scalexz = box.periodic(2) && box.xz != 0.0;
  for (int d = 0; d < 3; ++d) p.fixedpoint[d] = 0.5 * (box.lo[d] + box.hi[d]);
  bool have_t = false, have_p = false;
  if (a.done())
    a.fail("fix " + style + " needs " + (p.tstat ? "'temp Tstart Tstop Tdamp'" : "") +
           (p.tstat && p.pstat ? " and " : "") + (p.pstat ? "'iso|aniso|tri Pstart Pstop Pdamp'" : ""));
  while (!a.done()) {
    const std::string k =
        a.choice("a fix " + style + " keyword",
                 {"temp",   "iso",    "aniso",   "tri",     "x",       "y",     "z",         "yz",     "xz",
                  "xy",     "couple", "tchain",  "pchain",  "mtk",     "tloop", "ploop",     "nreset", "drag",
                  "dilate", "ptemp",  "scalexy", "scalexz", "scaleyz", "flip",  "fixedpoint"});
    if (k == "temp") {
      if (!p.tstat)
        a.fail("fix nph takes no 'temp' (LAMMPS: Temperature control can not be used with fix nph)");
      p.t_start = a.positive("Tstart (K)");
      p.t_stop = a.positive("Tstop (K)");
      p.t_period = a.positive("Tdamp (ps)");
      have_t = true;
    } else if (k == "iso" || k == "aniso" || k == "tri" || k == "x" || k == "y" || k == "z" || k == "yz" ||
               k == "xz" || k == "xy") {
      if (!p.pstat) a.fail("fix " + style + " takes no pressure keyword '" + k + "' (use fix npt)");
      const double p0 = a.real("Pstart (bar)"), p1 = a.real("Pstop (bar)"), pd = a.positive("Pdamp (ps)");
      auto set = [&](int q, double start, double stop) {
        p.p_start[q] = start, p.p_stop[q] = stop, p.p_period[q] = pd, p.p_flag[q] = true;
      };
      if (k == "iso" || k == "aniso" || k == "tri") {
        p.pcouple = k == "iso" ? Couple::xyz : Couple::none;
        for (int d = 0; d < 3; ++d) set(d, p0, p1);
        if (k == "tri") {
          p.scalexy = p.scalexz = p.scaleyz = false;
          for (int q = 3; q < 6; ++q) set(q, 0.0, 0.0);  // the tilts' targets are zero
        }
      } else {
        // LAMMPS's Voigt order: x y z yz xz xy; a component's own target makes the stress deviatoric
        const int q = k == "x" ? 0 : k == "y" ? 1 : k == "z" ? 2 : k == "yz" ? 3 : k == "xz" ? 4 : 5;
        set(q, p0, p1);
        p.deviatoric = true;
        if (q == 3) p.scaleyz = false;
        if (q == 4) p.scalexz = false;
        if (q == 5) p.scalexy = false;
      }
      have_p = true;
    } else if (k == "couple") {
      const std::string how = a.choice("a coupling", {"none", "xyz", "xy", "yz", "xz"});
      p.pcouple = how == "xyz"  ? Couple::xyz
                  : how == "xy" ? Couple::xy
                  : how == "yz" ? Couple::yz
                  : how == "xz" ? Couple::xz
                                : Couple::none;
    } else if (k == "tchain" || k == "pchain") {
      const int n = static_cast<int>(a.integer(k, 1, kMaxChain));
      (k == "tchain" ? p.tchain : p.pchain) = n;
    } else if (k == "mtk") {
      p.mtk = a.yes_no("mtk");
    } else if (k == "tloop" || k == "ploop") {
      if (a.integer(k, 1, 1) != 1) a.fail(k + " other than 1 is not supported");
    } else if (k == "nreset") {
      p.nreset = a.integer("nreset", 0, 2147483647);
    } else if (k == "ptemp") {
      p.p_temp = a.positive("ptemp (K)");
    } else if (k == "drag") {
      p.drag = a.non_negative("drag");
    } else if (k == "scalexy" || k == "scalexz" || k == "scaleyz") {
      const bool on = a.yes_no(k);
      (k == "scalexy" ? p.scalexy : k == "scalexz" ? p.scalexz : p.scaleyz) = on;
    } else if (k == "flip") {
      p.flip = a.yes_no("flip");
    } else if (k == "fixedpoint") {
      for (int d = 0; d < 3; ++d) p.fixedpoint[d] = a.real("a fixed-point coordinate (Å)");
    } else {
      const std::string g = a.word("the dilate group (all or a group ID)");
      if (g != "all") {
        if (f.ctx.s.group_bit(g) == 0)
          a.fail("Fix " + style + " dilate group ID " + g + " does not exist (LAMMPS's error)");
        p.dilate = g;
      }
    }
  }
  if (p.tstat && !have_t) a.fail("fix " + style + " needs 'temp Tstart Tstop Tdamp'");
  if (p.pstat && !have_p)
    a.fail("fix " + style + " needs 'iso', 'aniso', 'tri' or 'x/y/z/yz/xz/xy Pstart Pstop Pdamp'");
  // LAMMPS's checks, in its order.
  const bool* pf = p.p_flag;
  const Couple pc = p.pcouple;
  if ((pc == Couple::xyz && !(pf[0] && pf[1] && pf[2])) || (pc == Couple::xy && !(pf[0] && pf[1])) ||
      (pc == Couple::yz && !(pf[1] && pf[2])) || (pc == Couple::xz && !(pf[0] && pf[2])))
    a.fail("Invalid fix " + style + " command pressure settings (a coupled dimension is not barostatted)");
  for (int d = 0; d < 3; ++d)
    if (pf[d] && !box.periodic(d)) a.fail("Cannot use fix " + style + " on a non-periodic dimension");
  if ((pf[3] && !box.periodic(2)) || (pf[4] && !box.periodic(2)) || (pf[5] && !box.periodic(1)))
    a.fail("Cannot use fix " + style + " on a 2nd non-periodic dimension");
  if (p.scaleyz && !box.periodic(2))
    a.fail("Cannot use fix " + style + " with yz scaling when z is non-periodic dimension");
  if (p.scalexz && !box.periodic(2))
    a.fail("Cannot use fix " + style + " with xz scaling when z is non-periodic dimension");
  if (p.scalexy && !box.periodic(1))
    a.fail("Cannot use fix " + style + " with xy scaling when y is non-periodic dimension");
  if (pf[3] && p.scaleyz) a.fail("Cannot use fix " + style + " with both yz dynamics and yz scaling");
  if (pf[4] && p.scalexz) a.fail("Cannot use fix " + style + " with both xz dynamics and xz scaling");
  if (pf[5] && p.scalexy) a.fail("Cannot use fix " + style + " with both xy dynamics and xy scaling");
  if (!box.triclinic && (pf[3] || pf[4] || pf[5]))
    a.fail("Can not specify Pxy/Pxz/Pyz in fix " + style + " with non-triclinic box");
  auto same = [&](int i, int j) {
    return p.p_start[i] == p.p_start[j] && p.p_stop[i] == p.p_stop[j] && p.p_period[i] == p.p_period[j];
  };
  if ((pc == Couple::xyz && !(same(0, 1) && same(0, 2))) || (pc == Couple::xy && !same(0, 1)) ||
      (pc == Couple::yz && !same(1, 2)) || (pc == Couple::xz && !same(0, 2)))
    a.fail("Invalid fix " + style + " pressure settings (coupled dimensions need one target and period)");
  // LAMMPS's pstyle: TRICLINIC when a tilt is controlled, ISO with coupling xyz, ANISO otherwise; flips
  // are checked (pre_exchange) when a tilt is controlled or non-zero at the definition.
  if (p.pstat) {
    p.pstyle = (pf[3] || pf[4] || pf[5]) ? PStyle::triclinic
               : pc == Couple::xyz       ? PStyle::iso
                                         : PStyle::aniso;
    p.pre_exchange = p.flip && (pf[3] || pf[4] || pf[5] || box.yz != 0.0 || box.xz != 0.0 || box.xy != 0.0);
  }
  // LAMMPS's fix nvt computes the temperature of its group, fix npt of all atoms (the pressure's).
  const FixArgs temp_args{f.id, p.pstat ? 1u : f.group, f.style, f.a, f.ctx};
  return std::make_unique<FixNH>(id, group, style, p, make_own_temperature(temp_args));
}

WMD_FIX_STYLE("nvt", make_fix_nh)
WMD_FIX_STYLE("npt", make_fix_nh)
WMD_FIX_STYLE("nph", make_fix_nh)
WMD_FIX_STYLE("nvt/sllod", make_fix_nh)

}  // namespace wmd::md
