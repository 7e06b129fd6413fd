// What the run loop asks of an execution backend (cluster, mesh): neighbour upkeep and forces. Backends
// register by name from their own files (WMD_BACKEND), as styles do; the Simulation makes the one the input's
// `backend` setting names.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/run_settings.hpp"
#include "md/core/balance_settings.hpp"
#include "md/core/comm.hpp"
#include "md/core/decomposition.hpp"
#include "md/core/neighbor_settings.hpp"
#include "md/core/registry.hpp"
#include "md/core/state.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md {

/// Named arrays a component hands to a checkpoint and gets back on restart (backends, fixes). Integers are
/// stored as doubles (exact below 2^53).
using NamedArrays = std::map<std::string, std::vector<double>>;

/// Energies and virial of the last force computation (summed over the whole system).
struct ForceResult {
  double energy = 0.0;                    // EAM energy: embedding + pair, eV
  double virial[6] = {0, 0, 0, 0, 0, 0};  // Σ r_a f_b over pairs: xx yy zz xy xz yz, eV
  std::vector<double> eatom;              // per-atom energy (owned atoms, state order), filled when asked
  bool tallied = true;                    // false: energy and virial were not summed at this step
};

/// Counters LAMMPS prints at the end of a run.
struct NeighborStats {
  int64_t builds = 0;
  int64_t dangerous = 0;
  int64_t pairs = 0;       // half-list entries at the last build
  int64_t ghosts = 0;      // ghost images at the last build
  int64_t balances = 0;    // sub-domain rebalancing passes (fix balance)
  double imbalance = 1.0;  // imbalance factor after the last of them
  int64_t lost = 0;        // atoms dropped through fixed faces since the backend was made (all ranks)
};

/// Seconds spent per phase, for the LAMMPS timing breakdown.
struct PhaseTimes {
  double pair = 0.0, neigh = 0.0, comm = 0.0;
};

/// Global work a fix or compute adds on the wafer: its per-atom work runs on each atom's PE, and each global
/// sum or extremum it forms is one fabric reduction of `words` 32-bit words.
struct MeshWork {
  int reductions = 0;  // global reductions
  int words = 0;       // words they combine in all (one per value: the PEs' fp32)
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// "cluster" or "mesh".
  virtual std::string name() const = 0;
  /// Starts a run: wraps atoms, builds neighbour data from scratch and computes forces into s.atoms.f*.
  virtual void setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb,
                     bool eatom) = 0;
  /// After the drift of one step: rebuilds neighbours when due, then computes forces. With tally false the
  /// global energy and virial may be skipped (LAMMPS's eflag/vflag: only thermo and output steps read them).
  virtual void compute(State& s, bool eatom, bool tally) = 0;
  /// The next compute re-neighbours whatever the displacements (LAMMPS's next_reneighbor: fix deposit
  /// inserted atoms). Collective: every rank calls it at the same step.
  virtual void force_rebuild() {}
  /// Result of the last compute.
  virtual const ForceResult& result() const = 0;
  /// Neighbour counters since the last setup.
  virtual NeighborStats neighbor_stats() const = 0;
  /// Phase times since the last setup.
  virtual PhaseTimes phase_times() const = 0;
  /// This rank's state that later arithmetic depends on (e.g. neighbour-list state, PE assignment), for a
  /// checkpoint. Called at the end of a step, after compute.
  virtual NamedArrays save_state() const { return {}; }
  /// Restores what save_state gave; the next setup must continue exactly as the saved run would have.
  virtual void restore_state(const NamedArrays& /*state*/) {}
  /// Checks, in the dry run, what setup would refuse (InputError), so bad input stops before any output.
  virtual void validate(const State& /*s*/, const potentials::EamTables& /*tables*/,
                        const NeighborSettings& /*nb*/) const {}
  /// Lines for the log after setup (the mesh backend prints its grid and window radius).
  virtual std::vector<std::string> setup_notes() const { return {}; }
  /// Charges the global reductions a fix or compute formed this step (the mesh backend adds them to its cycle
  /// account; backends without a cycle model ignore them).
  virtual void charge(const MeshWork& /*work*/) {}
  /// Adds backend-specific objects to report.json (the mesh backend's `fabric`).
  virtual void add_report(nlohmann::json& /*report*/) const {}
};

/// Settings that commands and fixes change between runs and that only some backends act on. The Simulation
/// owns them and hands their address to the backend it makes (as it hands its Decomposition); the backend
/// reads them when it needs them, and one to which a setting does not apply never looks at it — so the
/// Backend contract carries no backend-specific setter.
struct BackendControls {
  /// fix balance's rebalancing for the coming runs (none during a minimisation, as in LAMMPS): backends with
  /// sub-domains (kSubdomains) move their cuts.
  LoadBalance balance;
  /// `thermo_modify lost ignore|warn`: an atom that leaves through a fixed face is dropped at the next
  /// re-neighbouring (counted in NeighborStats::lost), as LAMMPS's exchange drops it, instead of ending the
  /// run. Only backends with kDropsLostAtoms do; the commands refuse it for the others.
  bool drop_lost = false;
};

/// What a backend's factory gets: the run settings (its own keys among them) and the Simulation's parts it
/// may keep pointers to, which outlive the backend.
struct Lattice;

struct BackendArgs {
  const io::RunSettings& settings;
  const Comm* comm;
  Decomposition* decomp;  // the Simulation's sub-domain grid, for backends that decompose the box
  const BackendControls* controls;
  const Lattice* lattice = nullptr;  // the script's current `lattice` (the mesh's site mapping reads it)
};

/// What a backend declares about itself, for the commands that depend on it.
enum BackendTraits : unsigned {
  kNoBackendTraits = 0u,
  kSubdomains = 1u,      // the box is split into sub-domains (balance, fix balance, processors act on them)
  kDropsLostAtoms = 2u,  // can drop atoms that leave through a fixed face (thermo_modify lost ignore|warn)
};

/// A registered backend: its factory and traits.
struct BackendStyle {
  std::unique_ptr<Backend> (*make)(const BackendArgs&);
  unsigned traits = kNoBackendTraits;
};
using BackendRegistry = Registry<BackendStyle>;

}  // namespace wmd::md

/// Registers a backend under NAME (the `backend` setting) with its TRAITS and factory MAKE, a function or a
/// capture-less lambda `std::unique_ptr<Backend>(const BackendArgs&)`; one line next to the backend's code.
#define WMD_BACKEND(NAME, TRAITS, ...) \
  WMD_REGISTER(::wmd::md::BackendRegistry, NAME, ::wmd::md::BackendStyle{__VA_ARGS__, TRAITS})
