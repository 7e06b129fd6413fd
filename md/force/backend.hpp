// What the run loop asks of an execution backend (cluster, mesh): neighbour upkeep and forces.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "md/core/balance_settings.hpp"
#include "md/core/neighbor_settings.hpp"
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
  /// `thermo_modify lost ignore|warn`: an atom that leaves through a fixed face is dropped at the next
  /// re-neighbouring (counted in NeighborStats::lost), as LAMMPS's exchange drops it, instead of ending the
  /// run; false (lost error) ends it. A backend that cannot drop atoms refuses in validate().
  virtual void set_drop_lost(bool /*drop*/) {}
  /// Dynamic load balancing for the next runs (fix balance); backends without sub-domains ignore it.
  virtual void set_load_balance(const LoadBalance& /*lb*/) {}
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

}  // namespace wmd::md
