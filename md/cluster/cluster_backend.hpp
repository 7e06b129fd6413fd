// The cluster backend: LAMMPS-style spatial decomposition with ghost images, half lists and Newton's
// third law. This file holds the single-domain engine (one rank); the MPI decomposition builds on it.
#pragma once
#include <vector>

#include "md/backend.hpp"
#include "md/ghost_images.hpp"
#include "md/half_neighbor_list.hpp"

namespace wmd::md {

class ClusterBackend : public Backend {
 public:
  std::string name() const override { return "cluster"; }
  void setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb, bool eatom) override;
  void compute(State& s, bool eatom) override;
  const ForceResult& result() const override { return result_; }
  NeighborStats neighbor_stats() const override { return stats_; }
  PhaseTimes phase_times() const override { return times_; }
  /// Positions at the last neighbour build ("xhold") and steps since it ("ago").
  NamedArrays save_state() const override;
  /// The next setup rebuilds the images and half list from the saved build positions, not the current ones,
  /// so the list (and every sum over it) is identical to the saved run's.
  void restore_state(const NamedArrays& state) override;

 private:
  /// Wraps atoms, checks for lost or non-finite atoms, makes images and the half list.
  void rebuild(State& s);
  /// Rebuilds from the restored build positions, then moves images to the current positions.
  void rebuild_restored(State& s);
  /// True when the neighbour settings ask for a rebuild this step.
  bool rebuild_due(const State& s);
  /// Density, embedding and force passes; folds image contributions onto owners.
  void forces(State& s, bool eatom);

  const potentials::EamTables* tables_ = nullptr;
  NeighborSettings nb_;
  GhostImages images_;
  HalfNeighborList list_;
  std::vector<double> xhold_;  // positions at the last build, 3 per atom
  std::vector<double> rho_, fp_, f_, eatom_;
  int ago_ = 0;
  bool restored_ = false;  // setup continues from restore_state instead of building afresh
  ForceResult result_;
  NeighborStats stats_;
  PhaseTimes times_;
};

}  // namespace wmd::md
