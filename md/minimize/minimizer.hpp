// Energy minimisation (LAMMPS `minimize`): Polak–Ribière conjugate gradients with LAMMPS's line searches
// (backtrack, quadratic, forcezero), and FIRE 2.0 damped dynamics; optional box relaxation (LAMMPS `fix
// box/relax`, its extra degrees of freedom) for CG.
// Works through the Backend interface only, with global sums through a Comm, so it runs on every backend.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "md/core/comm.hpp"
#include "md/core/neighbor_settings.hpp"
#include "md/core/state.hpp"
#include "md/force/backend.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md {

/// `min_style`, `min_modify` and `minimize` settings (LAMMPS names and defaults).
struct MinSettings {
  std::string style = "cg";  // cg | fire
  double etol = 0.0, ftol = 0.0;
  int64_t maxiter = 0, maxeval = 0;
  double dmax = 0.1;               // Å: largest atom move per line search (cg) or per step (fire)
  std::string norm = "two";        // two | max | inf: the force norm compared with ftol
  std::string line = "quadratic";  // LAMMPS's line search: quadratic (its default), backtrack or forcezero
  bool normalize = false;          // thermo_modify norm yes: energies and F·h per atom, as LAMMPS's normflag
  // FIRE 2.0 (Guénolé et al. 2020), LAMMPS defaults
  int64_t delaystep = 20;
  double dtgrow = 1.1, dtshrink = 0.5, alpha0 = 0.25, alphashrink = 0.99, tmax = 10.0, tmin = 0.02;
  bool halfstepback = true, initialdelay = true;
  int64_t vdfmax = 2000;
};

/// `fix box/relax`: which box components are extra degrees of freedom of the line search, their targets
/// and LAMMPS's keywords. Components in LAMMPS's Voigt order: x y z (lengths), yz xz xy (tilt factors).
/// LAMMPS's pstyle: TRICLINIC (six degrees of freedom) when a tilt is relaxed, ISO (one) with coupling xyz,
/// otherwise ANISO (three, the unrelaxed ones with zero force).
struct BoxRelax {
  enum class Couple { none, xyz, xy, yz, xz };
  bool active = false;
  Couple couple = Couple::none;
  bool dim[6] = {false, false, false, false, false, false};  // LAMMPS's p_flag
  double target[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};         // bar
  bool deviatoric = false;  // an x, y, z, yz, xz or xy keyword was given (LAMMPS's deviatoric_flag)
  // Tilt factors that follow their box length (LAMMPS's scaleyz, scalexz, scalexy: on by default when the
  // tilt is non-zero at the fix's definition, off for a relaxed tilt).
  bool scaleyz = false, scalexz = false, scalexy = false;
  double vmax = 0.0001;    // largest fractional change of a box component per line search
  int64_t nreset = 0;      // reset the reference box every nreset iterations (deviatoric only)
  bool dilate_all = true;  // dilate partial: only the fix's group follows the box
  uint32_t group = 1;
  double fixedpoint[3] = {0.0, 0.0, 0.0};  // the point that stays fixed (box centre at the fix's definition)
  bool triclinic() const { return dim[3] || dim[4] || dim[5]; }
  bool iso() const { return !triclinic() && couple == Couple::xyz; }
  /// LAMMPS's min_dof: the extra degrees of freedom (1, 3 or 6).
  int ndof() const { return iso() ? 1 : triclinic() ? 6 : 3; }
  /// The reference box and targets of the current minimisation or run (LAMMPS's FixBoxRelax::init and
  /// compute_sigma), shared between the fix (its scalar) and the minimiser; null: nobody reads it.
  std::shared_ptr<struct BoxRelaxReference> reference;
};

/// FixBoxRelax's reference state: the box (h0, at init) and the lengths, volume and inverse box the strain is
/// measured from (reset by nreset), the hydrostatic target and the deviatoric stress sigma (Voigt order).
struct BoxRelaxReference {
  double h0[6] = {1.0, 1.0, 1.0, 0.0, 0.0, 0.0};  // LAMMPS's h0: xprd yprd zprd yz xz xy at init
  double prdinit[3] = {1.0, 1.0, 1.0};
  double h0_inv[6] = {1.0, 1.0, 1.0, 0.0, 0.0, 0.0};
  double vol0 = 1.0;
  double p_hydro = 0.0;  // bar
  bool deviatoric = false;
  double sigma[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
};

/// LAMMPS's FixBoxRelax::init on box b: the reference is b, the targets' mean and (deviatoric) sigma.
void box_relax_init(const BoxRelax& br, const Box& b, BoxRelaxReference& ref);
/// LAMMPS's compute_sigma: the reference reset to box b, and sigma = V0·h0⁻¹·P_dev·h0⁻ᵀ.
void box_relax_sigma(const BoxRelax& br, const Box& b, BoxRelaxReference& ref);
/// The energy of the box degrees of freedom at box b (eV): LAMMPS's min_energy's P·V term plus the
/// deviatoric strain energy — the minimised energy's addition and fix box/relax's scalar.
double box_relax_energy(const BoxRelax& br, const BoxRelaxReference& ref, const Box& b);

/// What LAMMPS prints as "Minimization stats".
struct MinStats {
  std::string stop;  // LAMMPS's stopping-criterion text
  double e_initial = 0, e_next_to_last = 0, e_final = 0;
  double fnorm2_initial = 0, fnorm2_final = 0;      // two-norm of the force vector
  double fnorminf_initial = 0, fnorminf_final = 0;  // largest force component
  double alpha_final = 0;
  int64_t iterations = 0, evaluations = 0;
  NeighborStats neighbors;  // summed over all backend set-ups
  PhaseTimes times;
};

/// Called after the initial evaluation (first = true) and after every iteration, with the state current.
using MinCallback = std::function<void(bool first, bool last)>;

/// Minimises the energy (plus P·V when box relaxation is on) of s in place; s.step advances once per
/// iteration. The backend is set up here; on return its result() belongs to the final configuration.
MinStats minimize(State& s, Backend& backend, const potentials::EamTables& tables, const NeighborSettings& nb,
                  const MinSettings& settings, const BoxRelax& box, const Comm& comm,
                  const MinCallback& each_iteration);

}  // namespace wmd::md
