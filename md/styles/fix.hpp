// The Fix family: operations applied to groups of atoms at LAMMPS's hook points of a velocity-Verlet step
// (initial_integrate → forces → post_force → final_integrate → end_of_step). Atoms are rank-local; every
// global quantity (temperature, kinetic energy, extrema) goes through the context's Comm.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/command.hpp"
#include "md/core/balance_settings.hpp"
#include "md/core/comm.hpp"
#include "md/core/region.hpp"
#include "md/core/registry.hpp"
#include "md/core/state.hpp"
#include "md/force/backend.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/style_lookup.hpp"
#include "md/styles/style_traits.hpp"

namespace wmd::md {

/// What a fix sees at a hook: the state, the communicator, the last forces and where the run stands.
struct FixContext {
  State& s;
  const Comm& comm;
  const ForceResult* force = nullptr;  // result of the last force computation (energies, virial)
  int64_t run_begin = 0, run_end = 0;  // steps of the current `run` (LAMMPS's beginstep/endstep, for ramps)
  StyleLookup* styles = nullptr;  // the computes, fixes and variables a fix may reference (null in tests)
  // LAMMPS's expired wall-time limit (timer->is_timeout): set by fix halt's soft and continue halts, it ends
  // the run after the step and makes later run and minimize commands do nothing (null outside a run).
  bool* timeout = nullptr;
  // True at the set-up of the run a checkpoint continues (--restart): a fix whose state was restored from it
  // goes on as the interrupted run would have, instead of starting the run afresh.
  bool continuing = false;
  const potentials::EamTables* tables = nullptr;  // the pair potential (computes a fix invokes may need it)
  // A fix may rescale the box between force computations (npt, press/berendsen): the backend's ghost images
  // follow the current box lengths and its displacement check re-neighbours, as in LAMMPS.

  /// Fraction of the current run elapsed, LAMMPS's delta = (step − begin)/(end − begin).
  double run_fraction() const {
    return run_end > run_begin ? static_cast<double>(s.step - run_begin) / (run_end - run_begin) : 0.0;
  }
  /// What a compute this fix invokes sees.
  ComputeContext compute_context() const { return ComputeContext{s, comm, force, styles, tables}; }
};

/// Named arrays a fix's internal state is saved as in a checkpoint.
using FixStateMap = NamedArrays;

struct BoxRelax;  // md/minimize/minimizer.hpp

/// A fix: LAMMPS's hooks of a step, its outputs and its checkpoint state. Each style is one class in
/// md/styles/fixes/, registered by its LAMMPS name with WMD_FIX_STYLE next to its code.
class Fix {
 public:
  Fix(std::string id, std::string style, uint32_t group)
      : id_(std::move(id)), style_(std::move(style)), group_(group) {}
  virtual ~Fix() = default;

  const std::string& id() const { return id_; }
  const std::string& style() const { return style_; }
  uint32_t group() const { return group_; }
  /// Restricts the fix to atoms inside a region (tested every step), in addition to the group.
  void set_region(const Region& r) { region_ = r, has_region_ = true; }
  /// Evaluates a moving or variable region's variables for this step (the run loop calls it once per step).
  void prematch_region() const {
    if (has_region_ && region_.dynamic()) region_.prematch();
  }

  /// Start of a run, before atoms are wrapped and forces computed (LAMMPS Fix::init).
  virtual void init(FixContext&) {}
  /// Start of a run, after the first force computation (LAMMPS Fix::setup).
  virtual void setup(FixContext&) {}
  /// First half of the step: half kick and drift for integrators.
  virtual void initial_integrate(FixContext&) {}
  /// After the first half of the step, before the forces (LAMMPS's post_integrate: dynamic groups).
  virtual void post_integrate(FixContext&) {}
  /// Before the step's forces, where LAMMPS's pre_exchange inserts atoms (fix deposit); true when the backend
  /// must re-neighbour at this step (LAMMPS's next_reneighbor: an insertion step, successful or not).
  virtual bool pre_exchange(FixContext&) { return false; }
  /// After the forces of the step are computed (Langevin, electronic stopping).
  virtual void post_force(FixContext&) {}
  /// Second half kick.
  virtual void final_integrate(FixContext&) {}
  /// After the step is complete (Berendsen, dt/reset).
  virtual void end_of_step(FixContext&) {}
  /// After the run's last step, whether it ran to its end or stopped early (LAMMPS's post_run).
  virtual void post_run(FixContext&) {}
  /// After every force evaluation of `minimize`, for fixes that only watch (fix halt; LAMMPS's
  /// min_post_force); the fixes that change forces there use post_force (changes_forces_when_minimizing).
  virtual void min_post_force(FixContext&) {}
  /// True if the fix changes the box (npt, press/berendsen, box/relax, deform): LAMMPS's box_change, which
  /// adds the volume to thermo_style one.
  virtual bool changes_box() const { return false; }
  /// The box components this fix sets (bits 0..5: x y z yz xz xy; LAMMPS's box_change flags): fix
  /// deform's deformed ones, a barostat's controlled ones. Two fixes on one component are refused at a
  /// run's set-up, as LAMMPS's Domain::init refuses them.
  virtual unsigned box_components() const { return 0; }
  /// LAMMPS's time_depend: the fix keeps a schedule in steps (deposit, dt/reset, vector), so reset_timestep
  /// is refused while it exists.
  virtual bool time_dependent() const { return false; }
  /// True if the fix integrates positions (nve, nvt, npt): it may not share atoms with another integrator.
  virtual bool integrates() const { return false; }
  /// True if the fix may read the global energy or virial (FixContext::force) at any step; fixes that only
  /// use forces and velocities say false, so steps without output can skip those sums.
  virtual bool reads_energy() const { return true; }
  /// reads_energy() for one step: a fix that reads the sums only at its own steps (fix halt's checks every
  /// N) lets the steps between skip them.
  virtual bool reads_energy_at(int64_t /*step*/) const { return reads_energy(); }
  /// A scalar output (f_ID in thermo): thermostat energy, energy removed by stopping, ...; false if none.
  /// Collective for fixes that sum over ranks when first asked after a step (LAMMPS's force_flag).
  virtual bool scalar(double&) const { return false; }
  /// Element i (0-based) of the global vector (f_ID[i+1]); shape().vector gives the length. Collective as
  /// scalar().
  virtual double vector_value(int i) const {
    (void)i;
    return 0.0;
  }
  /// Element (i, j) (0-based) of the global array (f_ID[i+1][j+1]).
  virtual double array_value(int i, int j) const {
    (void)i, (void)j;
    return 0.0;
  }
  /// This rank's per-atom output (state order, shape().peratom_cols values per atom when an array); null if
  /// none.
  virtual const std::vector<double>* peratom_values() const { return nullptr; }
  /// A `fix_modify` keyword of this style (temp, press, …) with its arguments; false when the style has no
  /// such keyword. Bad values fail at the cursor.
  virtual bool modify_param(const std::string& key, io::ArgCursor& a, const StyleLookup& styles) {
    (void)key, (void)a, (void)styles;
    return false;
  }
  /// True if the fix changes forces during `minimize` too (LAMMPS's min_setup and min_post_force: setforce,
  /// addforce, aveforce, viscous): minimize calls its post_force after every force computation.
  virtual bool changes_forces_when_minimizing() const { return false; }
  /// True if the fix's scalar is an energy that `fix_modify energy yes` may add to the potential energy
  /// (LAMMPS's energy_global_flag: indent, spring).
  virtual bool has_global_energy() const { return false; }
  /// `fix_modify energy yes|no` (LAMMPS's thermo_energy): the scalar then counts in thermo pe, etotal and
  /// compute pe, and in the energy `minimize` minimises.
  void set_energy_in_pe(bool on) { energy_in_pe_ = on; }
  bool energy_in_pe() const { return energy_in_pe_; }
  /// The dynamic load balancing this fix asks of the backend (fix balance); null for every other fix.
  virtual const LoadBalance* load_balance() const { return nullptr; }
  /// The box relaxation this fix asks of `minimize` (fix box/relax); null for every other fix.
  virtual const BoxRelax* box_relax() const { return nullptr; }
  /// LAMMPS's global_freq: its global outputs are current only on multiples of this many steps (fix
  /// ave/time: Nfreq); thermo and variables that read them must come on those steps.
  virtual int64_t global_freq() const { return 1; }
  /// True when the fix samples references at this step (fix ave/time, fix print): the step's forces must then
  /// come with what the computes it invokes read (per-atom energies).
  virtual bool samples_at(int64_t step) const {
    (void)step;
    return false;
  }
  /// The fix's LAMMPS outputs (f_ID, f_ID[i], per-atom values).
  virtual OutputShape shape() const { return {}; }
  /// The compute the fix defines for the script to read, as LAMMPS's modify->add_compute in a fix's
  /// constructor (fix nvt/sllod's `ID_temp`, style temp/deform on its group): {ID, style}, or empty. The
  /// fix command adds it to the computes (an existing ID fails) and unfix deletes it.
  virtual std::pair<std::string, std::string> added_compute() const { return {}; }
  /// The backends that can run this fix (a backend outside the set refuses the fix at its command).
  virtual unsigned backends() const { return kOnAnyBackend; }

  /// Writes the fix's internal state (chain variables, accumulators, counters) into named arrays.
  virtual void save_state(FixStateMap& out) const { (void)out; }
  /// Restores what save_state wrote (keys prefixed with the fix ID by the caller if it mixes fixes).
  virtual void restore_state(const FixStateMap& in) { (void)in; }
  /// Restores what save_state wrote into a write_restart file, for a fix defined after read_restart (LAMMPS's
  /// Fix::restart): restore_state unless the style's LAMMPS restart differs from a continued run (fix ttm
  /// starts a new random stream).
  virtual void restore_restart_state(const FixStateMap& in) { restore_state(in); }
  /// True for a style whose LAMMPS fix writes its state into restart files (restart_global or
  /// restart_peratom: nvt/npt, temp/berendsen, temp/rescale, deposit, spring/self, store/state, move,
  /// deform): a fix of that ID and style defined after read_restart takes it back. Every other fix starts
  /// afresh after read_restart, as in LAMMPS; its save_state serves wafermd's checkpoints (--restart) only.
  virtual bool keeps_restart_state() const { return false; }

 protected:
  /// True if atom i is in the group (and the region, if any).
  bool selected(const State& s, size_t i) const {
    if (!(s.atoms.mask[i] & group_)) return false;
    return !has_region_ || region_.match(s.atoms.x[i], s.atoms.y[i], s.atoms.z[i]);
  }

  std::string id_, style_;
  uint32_t group_;
  Region region_;
  bool has_region_ = false;
  bool energy_in_pe_ = false;
};

class Decomposition;

/// Everything a fix constructor may need besides its arguments.
struct FixBuildContext {
  const State& s;
  const std::map<std::string, Region>& regions;
  double xlattice = 1.0;  // lattice spacing in x (Å) for `units lattice` (LAMMPS default lattice none 1.0: 1)
  const Decomposition* decomposition = nullptr;  // the cluster backend's grid (fix balance); null otherwise
  std::string backend = "cluster";               // the backend that will run the fix
  const StyleLookup* styles = nullptr;           // computes, fixes and variables defined so far
  double lattice[3] = {1.0, 1.0, 1.0};           // lattice spacings x, y, z (default lattice none 1.0)
  const Comm* comm = nullptr;  // the ranks (fixes that keep per-atom values by id gather them)
  bool dry_run = false;        // the checking pass: runs take no steps (fix vector cannot know its length)
  bool restoring = false;      // a --restart replay: the atoms arrive with the checkpoint, at its run
};

/// `fix ID GROUP STYLE args...` as a style's factory sees it: the cursor stands after the style.
struct FixArgs {
  const std::string& id;
  uint32_t group;
  const std::string& style;
  io::ArgCursor& a;
  const FixBuildContext& ctx;
};

/// A registered fix style: its factory (bad arguments throw InputError at the command's line).
struct FixStyle {
  std::unique_ptr<Fix> (*make)(const FixArgs&);
};
using FixRegistry = Registry<FixStyle>;

/// Builds a fix from its registered style; an unknown style, or one the backend cannot run, fails with the
/// command's line.
std::unique_ptr<Fix> make_fix(const FixArgs& args);

/// The temperature compute a thermostat creates with itself, as LAMMPS's `ID_temp` (compute temp on the fix's
/// group); `fix_modify ID temp cID` replaces it by the script's compute.
std::unique_ptr<Compute> make_own_temperature(const FixArgs& f);

// Global helpers shared by the fixes (sums through TermSum).

/// The group's total mass and centre of mass from unwrapped positions (LAMMPS's group->mass and group->xcm;
/// xcm stays 0 for a massless group); one global sum.
double group_xcm(const FixContext& c, uint32_t group, double xcm[3]);
/// A fix's per-atom tallies of one step or force evaluation (its energy, the force on a wall or indenter,
/// the forces it replaced), summed over ranks when first read after it (LAMMPS's force_flag, eflag: that read
/// is collective) through one TermSum, so the total is exact at any rank count in deterministic mode.
class StepTally {
 public:
  /// Starts a new tally of n components on comm's ranks.
  void start(const Comm& comm, int n) {
    sum_.emplace(comm, n);
    open_ = true;
  }
  void add(int k, double v) { sum_->add(k, v); }
  /// Ends the tally start() began: the next read sums it.
  void finish() { open_ = false, summed_ = false; }
  /// Component k of the last finished tally (0 before any); collective at the first read after finish().
  /// A read while a tally is open (a variable the fix evaluates reads thermo's energy) gives the values of
  /// the last one summed, without a reduction.
  double total(size_t k) const {
    if (!open_ && !summed_ && sum_) total_ = sum_->total(), summed_ = true;
    return k < total_.size() ? total_[k] : 0.0;
  }

 private:
  std::optional<TermSum> sum_;
  mutable std::vector<double> total_;
  bool open_ = false;
  mutable bool summed_ = true;  // nothing to sum before the first tally
};

}  // namespace wmd::md

/// Registers fix style NAME (a string literal) with its factory `std::unique_ptr<Fix> MAKE(const FixArgs&)`.
#define WMD_FIX_STYLE(NAME, MAKE) WMD_REGISTER(::wmd::md::FixRegistry, NAME, ::wmd::md::FixStyle{MAKE})
