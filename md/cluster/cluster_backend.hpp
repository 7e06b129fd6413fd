// The cluster backend: LAMMPS-style spatial decomposition with ghost images, half lists and Newton's
// third law. This file holds the single-domain engine (one rank); the MPI decomposition builds on it.
#pragma once
#include <vector>

#include "md/backend.hpp"
#include "md/eam_half_kernels.hpp"
#include "md/ghost_images.hpp"
#include "md/half_neighbor_list.hpp"

namespace wmd::md {

class ClusterBackend : public Backend {
 public:
  /// `precision` chooses the pair-kernel arithmetic (cluster.precision).
  explicit ClusterBackend(PairPrecision precision = PairPrecision::fp64) : precision_(precision) {}
  std::string name() const override { return "cluster"; }
  void setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb, bool eatom) override;
  void compute(State& s, bool eatom) override;
  const ForceResult& result() const override { return result_; }
  NeighborStats neighbor_stats() const override { return stats_; }
  PhaseTimes phase_times() const override { return times_; }

 private:
  /// Wraps atoms, checks for lost or non-finite atoms, makes images and the half list.
  void rebuild(State& s);
  /// True when the neighbour settings ask for a rebuild this step.
  bool rebuild_due(const State& s);
  /// Density, embedding and force passes with the three exchanges between them (steps below).
  void forces(State& s, bool eatom);
  /// Reverse exchange: densities accumulated on images are added to their owners.
  void reverse_density();
  /// Forward exchange: images take their owner's F'.
  void forward_fp();
  /// Reverse exchange: forces (and per-atom energies) accumulated on images are added to their owners.
  void reverse_forces(double* eatom);

  PairPrecision precision_;
  const potentials::EamTables* tables_ = nullptr;
  EamPairTables pair_tables_;
  NeighborSettings nb_;
  GhostImages images_;
  HalfNeighborList list_;
  std::vector<double> xhold_;                              // positions at the last build, 3 per atom
  Kokkos::View<double*, Kokkos::HostSpace> rho_, fp_, f_;  // per record (f: 3 per record)
  std::vector<double> eatom_;
  int ago_ = 0;
  ForceResult result_;
  NeighborStats stats_;
  PhaseTimes times_;
};

}  // namespace wmd::md
