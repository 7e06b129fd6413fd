// The Compute family: LAMMPS computes, which derive global scalars, vectors or arrays, per-atom values or
// local (per-pair) values from the state on demand. Each style is one class in md/styles/computes/,
// registered by its LAMMPS name with WMD_COMPUTE_STYLE next to its code.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/command.hpp"
#include "md/core/comm.hpp"
#include "md/core/kinetic_energy.hpp"  // the one kinetic sum the temperature computes use
#include "md/core/region.hpp"
#include "md/core/registry.hpp"
#include "md/core/state.hpp"
#include "md/force/backend.hpp"
#include "md/styles/style_lookup.hpp"
#include "md/styles/style_traits.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md {

/// What a compute sees when it is invoked: the state, the ranks, the last force computation, the other
/// styles and variables, the pair potential.
struct ComputeContext {
  const State& s;
  const Comm& comm;
  const ForceResult* force =
      nullptr;                    // energies, virial and (when asked) per-atom energies; null before a run
  StyleLookup* styles = nullptr;  // other computes, fixes and the variables (null in unit tests)
  const potentials::EamTables* tables = nullptr;  // the pair potential (null before pair_coeff)
  bool dry_run = false;  // the dry run: no forces exist, values only need to be well-formed
};

class Compute {
 public:
  Compute(std::string id, std::string style, uint32_t group)
      : id_(std::move(id)), style_(std::move(style)), group_(group) {}
  virtual ~Compute() = default;

  const std::string& id() const { return id_; }
  const std::string& style() const { return style_; }
  uint32_t group() const { return group_; }

  /// The compute's LAMMPS outputs (c_ID, c_ID[i], per-atom and local values).
  virtual OutputShape shape() const = 0;
  /// The backends that can run it (a backend outside the set refuses the compute at its command).
  virtual unsigned backends() const { return kOnAnyBackend; }
  /// True when its per-atom values need the backend's per-atom energies at that step (pe/atom).
  virtual bool needs_eatom() const { return false; }

  /// LAMMPS's tempflag and pressflag: what `thermo_modify temp`, `fix_modify temp` and
  /// `velocity … temp` accept.
  virtual bool is_temperature() const { return false; }
  virtual bool is_pressure() const { return false; }
  /// Degrees of freedom of a temperature compute (LAMMPS's dof), as of its last init or compute_scalar.
  double dof() const { return dof_; }
  /// LAMMPS's tempbias: the temperature is that of velocities with a bias removed (temp/partial, temp/com,
  /// temp/region), which thermostats remove before scaling and restore after.
  virtual bool has_bias() const { return false; }
  /// Removes atom i's bias (any atom, in the group or not, as LAMMPS's remove_bias(i, v); kept until
  /// restore_bias) / adds it back: fix temp/rescale scales the thermal velocities of its own group. Call
  /// compute_scalar first (the bias of temp/com is found there).
  virtual void remove_bias(State& s, size_t i) { (void)s, (void)i; }
  virtual void restore_bias(State& s, size_t i) { (void)s, (void)i; }
  /// `compute_modify extra/dof N` (LAMMPS's extra_dof, default 3: the centre of mass).
  void set_extra_dof(double n) { extra_dof_ = n; }
  /// `compute_modify dynamic/dof yes`: the group's atom count is taken afresh at every evaluation.
  void set_dynamic_dof(bool on) { dynamic_dof_ = on; }

  /// LAMMPS's init and setup, at the set-up of every run and minimisation and before a command uses the
  /// compute: degrees of freedom from the group's count, referenced computes and fixes looked up
  /// (collective).
  virtual void init(const ComputeContext& c) { (void)c; }
  /// Global scalar (collective); sets invoked_scalar.
  virtual double compute_scalar(const ComputeContext&) { return 0.0; }
  /// Global vector into vector() (collective); sets invoked_vector.
  virtual void compute_vector(const ComputeContext&) {}
  /// Global array into array() (row-major, shape().array_cols per row); sets invoked_array.
  virtual void compute_array(const ComputeContext&) {}
  /// This rank's per-atom values into peratom() (state order; `shape().peratom_cols` values per atom when it
  /// is an array, one otherwise; 0 for atoms outside the group); sets invoked_peratom.
  virtual void compute_peratom(const ComputeContext&) {}
  /// This rank's local rows (per pair, …) into local() (`shape().local_cols` values per row when an array);
  /// sets invoked_local.
  virtual void compute_local(const ComputeContext&) {}
  const std::vector<double>& vector() const { return vector_; }
  const std::vector<double>& array() const { return array_; }
  const std::vector<double>& peratom() const { return peratom_; }
  const std::vector<double>& local() const { return local_; }
  /// This rank's local rows.
  size_t local_rows() const {
    const int cols = shape().local_cols;
    return cols > 0 ? local_.size() / cols : local_.size();
  }
  double scalar() const { return scalar_; }

  /// The step each output was last computed at (−1: never), LAMMPS's invoked_* flags: a reference between
  /// runs may use an output only when it is current (computed at the present step).
  int64_t invoked_scalar = -1, invoked_vector = -1, invoked_array = -1, invoked_peratom = -1,
          invoked_local = -1;
  /// LAMMPS's invoked_flag: the outputs already computed in the present output event (thermo line, dump
  /// frame, fix ave/time sample), cleared at the start of each (Simulation::clearstep_computes).
  enum InvokedBits : unsigned {
    kInvokedScalar = 1u,
    kInvokedVector = 2u,
    kInvokedArray = 4u,
    kInvokedPeratom = 8u,
    kInvokedLocal = 16u
  };
  unsigned invoked_flag = 0;

  /// Internal state later values depend on (e.g. reference positions), for checkpoints.
  virtual void save_state(NamedArrays& out) const { (void)out; }
  virtual void restore_state(const NamedArrays& in) { (void)in; }
  /// True for a style whose LAMMPS compute keeps its state in a fix STORE that restart files carry (msd,
  /// vacf, displace/atom: the reference positions or velocities): a compute of that ID and style defined
  /// after read_restart takes it back. Every other compute starts afresh after read_restart, as in LAMMPS.
  virtual bool keeps_restart_state() const { return false; }

 protected:
  /// True if atom i is in the group.
  bool in_group(const Atoms& a, size_t i) const { return (a.mask[i] & group_) != 0; }

  std::string id_, style_;
  uint32_t group_;
  double scalar_ = 0.0, dof_ = 0.0, extra_dof_ = 3.0;
  bool dynamic_dof_ = false;
  std::vector<double> vector_, array_, peratom_, local_;
};

// Invoking a compute for a reference, as LAMMPS's thermo, dumps, fix ave/time and variables do: its output
// is computed unless this output event already computed it (invoked_flag).
double invoke_scalar(Compute& c, const ComputeContext& ctx);
const std::vector<double>& invoke_vector(Compute& c, const ComputeContext& ctx);
const std::vector<double>& invoke_array(Compute& c, const ComputeContext& ctx);
const std::vector<double>& invoke_peratom(Compute& c, const ComputeContext& ctx);
const std::vector<double>& invoke_local(Compute& c, const ComputeContext& ctx);

/// Everything a compute constructor may need besides its arguments.
struct ComputeBuildContext {
  const State& s;
  const std::map<std::string, Region>& regions;
  std::string backend = "cluster";       // the backend that will run it
  const StyleLookup* styles = nullptr;   // the computes and fixes defined so far (null in unit tests)
  double xlattice[3] = {1.0, 1.0, 1.0};  // lattice spacings for `units lattice` (default lattice none 1.0)
  const Comm* comm = nullptr;            // the ranks (computes that keep reference positions gather them)
  // The pair style as written, then hybrid/overlay's sub-styles (empty before pair_style): compute pair.
  std::vector<std::string> pair_styles;
};

/// `compute ID GROUP STYLE args...` as a style's factory sees it: the cursor stands after the style.
struct ComputeArgs {
  const std::string& id;
  uint32_t group;
  const std::string& style;
  io::ArgCursor& a;
  const ComputeBuildContext& ctx;
};

/// A registered compute style: its factory (bad arguments throw InputError at the command's line).
struct ComputeStyle {
  std::unique_ptr<Compute> (*make)(const ComputeArgs&);
};
using ComputeRegistry = Registry<ComputeStyle>;

/// Builds a compute from its registered style; an unknown style, or one the backend cannot run, fails with
/// the command's line.
std::unique_ptr<Compute> make_compute(const ComputeArgs& args);

}  // namespace wmd::md

/// Registers compute style NAME (a string literal) with its factory
/// `std::unique_ptr<Compute> MAKE(const ComputeArgs&)`.
#define WMD_COMPUTE_STYLE(NAME, MAKE) \
  WMD_REGISTER(::wmd::md::ComputeRegistry, NAME, ::wmd::md::ComputeStyle{MAKE})
