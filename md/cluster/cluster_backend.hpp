// The cluster backend: LAMMPS-style spatial decomposition over MPI ranks (md/cluster/decomposition.hpp),
// ghost atoms exchanged face by face (ghost_exchange.hpp), half lists with Newton's third law — or, in
// deterministic mode, full lists summed per atom in global-id order (md/eam_atom_kernels.hpp), bit-identical
// for any rank count.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "md/cluster/eam_half_kernels.hpp"
#include "md/cluster/ghost_exchange.hpp"
#include "md/cluster/ghost_images.hpp"
#include "md/cluster/half_neighbor_list.hpp"
#include "md/core/comm.hpp"
#include "md/core/decomposition.hpp"
#include "md/force/backend.hpp"

namespace wmd::md {

class ClusterBackend : public Backend {
 public:
  /// Single-rank engine (no decomposition): for unit tests and one-rank tools.
  ClusterBackend() : ClusterBackend(nullptr, nullptr, false) {}
  /// Single-rank engine with the pair kernels' arithmetic `precision` (cluster.precision).
  explicit ClusterBackend(PairPrecision precision) : ClusterBackend(nullptr, nullptr, false, precision) {}
  /// comm, dec and controls (the Simulation's, outliving the backend) may be null: one rank owning the whole
  /// box, no load balancing, lost atoms end the run. `precision` applies to the half-list kernels;
  /// deterministic mode is always fp64.
  ClusterBackend(const Comm* comm, Decomposition* dec, bool deterministic,
                 PairPrecision precision = PairPrecision::fp64, const BackendControls* controls = nullptr)
      : comm_(comm ? comm : &Comm::local()),
        dec_(dec ? dec : &single_),
        deterministic_(deterministic),
        precision_(precision),
        controls_(controls ? controls : &no_controls_) {}
  /// Completes a rebuild vote left in flight by a step that failed.
  ~ClusterBackend() override {
    if (vote_pending_) comm_->any_finish(vote_);
  }
  std::string name() const override { return "cluster"; }
  void setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb, bool eatom) override;
  void compute(State& s, bool eatom, bool tally) override;
  const ForceResult& result() const override { return result_; }
  /// This rank's counters (pairs and ghosts of its sub-domain).
  NeighborStats neighbor_stats() const override {
    NeighborStats st = stats_;
    st.lost = lost_;
    return st;
  }
  /// This rank's phase times.
  PhaseTimes phase_times() const override { return times_; }
  /// Positions at the last neighbour build ("xhold") and steps since it ("ago").
  NamedArrays save_state() const override;
  /// The next setup rebuilds the images and half list from the saved build positions, not the current ones,
  /// so the list (and every sum over it) is identical to the saved run's.
  void restore_state(const NamedArrays& state) override;
  void force_rebuild() override { rebuild_forced_ = true; }

 private:
  /// Wraps atoms, checks for lost or non-finite atoms, rebalances the cuts when fix balance asks for it
  /// (always at set-up), migrates atoms to their ranks, exchanges ghosts, lists.
  void rebuild(State& s, bool at_setup = false);
  /// Rebuilds from the restored build positions, then moves images to the current positions.
  void rebuild_restored(State& s);
  /// Whether the neighbour settings ask for a rebuild this step: no, yes (the same on every rank), or vote
  /// (`check yes`: a rebuild if any rank's atom moved more than half the skin; `moved` is this rank's
  /// answer; null: the caller checks the displacements itself).
  enum class Due { no, yes, vote };
  Due rebuild_due(const State& s, bool* moved);
  /// The squared displacement past which an atom asks for a rebuild (half the skin).
  /// The squared displacement that triggers a rebuild: (skin/2)², less the motion of the faces of a periodic
  /// box since the last build (LAMMPS's boxcheck while a fix changes the box: fix deform with remap v wraps
  /// atoms, and changes their velocities, at the rebuild steps this sets). A box that has not moved since
  /// the build keeps the full trigger.
  double rebuild_trigger(const Box& b) const {
    const double full = 0.25 * nb_.skin * nb_.skin;
    if (!(b.periodic(0) || b.periodic(1) || b.periodic(2))) return full;
    double lo = 0.0, hi = 0.0;
    for (int d = 0; d < 3; ++d) {
      lo += (b.lo[d] - box_hold_[d]) * (b.lo[d] - box_hold_[d]);
      hi += (b.hi[d] - box_hold_[3 + d]) * (b.hi[d] - box_hold_[3 + d]);
    }
    const bool tilted = b.xy != box_hold_[6] || b.xz != box_hold_[7] || b.yz != box_hold_[8];
    if (lo == 0.0 && hi == 0.0 && !tilted) return full;
    double d1 = std::sqrt(lo), d2 = std::sqrt(hi);
    if (b.triclinic) corner_motion(b, d1, d2);
    const double delta = std::max(0.0, 0.5 * (nb_.skin - (d1 + d2)));
    return delta * delta;
  }
  /// A triclinic box's two largest corner displacements since the last build (LAMMPS's box_corners check).
  void corner_motion(const Box& b, double& d1, double& d2) const;
  /// Keeps the box of this build (lo, hi, tilts) for the trigger and a restored rebuild.
  void hold_box(const Box& b) {
    box_hold_ = {b.lo[0], b.lo[1], b.lo[2], b.hi[0], b.hi[1], b.hi[2], b.xy, b.xz, b.yz};
  }
  /// The box of the last build: `now` (its periodicity and shape) with the held lo, hi and tilts.
  Box held_box(const Box& now) const {
    Box b = now;
    for (int d = 0; d < 3; ++d) b.lo[d] = box_hold_[d], b.hi[d] = box_hold_[3 + d];
    b.xy = box_hold_[6], b.xz = box_hold_[7], b.yz = box_hold_[8];
    return b;
  }
  /// A rebuild the vote asked for at the first step it could: the list may have been stale (LAMMPS's count).
  void count_rebuild_after_vote();
  /// Orders the owned atoms as [inner half A | border | inner half B] (stable), where inner atoms lie at
  /// least the list cut-off inside every face shared with another rank, so their lists hold no ghost from
  /// another rank (on one rank all atoms are inner and the order stays).
  /// On a triclinic box the atoms are fractional here, `frame` its lamda_frame() and cutghost the
  /// cutoff's fractional reach per direction.
  void split_for_overlap(State& s, const Box& frame, const double cutghost[3]);
  /// Unsplits (all border) if an inner atom's list holds a ghost from another rank after all.
  void check_split();
  /// Density, embedding and force passes on the half list with the exchanges between them. Each pass runs in
  /// the split's three pieces so that every exchange with another rank is in flight while inner atoms are
  /// computed. With tally false the virial and the global energy sum are skipped.
  void forces(State& s, bool eatom, bool tally = true);
  /// Sizes the per-record arrays for the current lists, zeroes ρ̄ and runs inner half A's density (the piece
  /// that overlaps the position exchange and the rebuild vote); returns the lists the passes read.
  HalfPairs start_density_pass(bool eatom);
  /// Completes the rebuild vote that compute() started, if any; when it asks for a rebuild, ends the position
  /// exchange, rebuilds and returns true (the density computed so far belongs to the old lists).
  bool finish_rebuild_vote(State& s);
  /// Copies the owned forces (and per-atom energies) out of the pass arrays, zeroing them for the next step.
  void take_forces(Atoms& a, bool eatom);
  /// Sums this rank's energy and virial over every rank, in rank order.
  void sum_energy_virial();
  /// Deterministic mode: full neighbourhoods in (global id, shift) order, one atom at a time.
  void build_full_list();
  void forces_deterministic(State& s, bool eatom);

  const Comm* comm_;
  Decomposition* dec_;
  Decomposition single_;
  bool deterministic_;
  PairPrecision precision_;
  const potentials::EamTables* tables_ = nullptr;
  EamPairTables pair_tables_;
  NeighborSettings nb_;
  // fix balance (the cuts of the decomposition move at set-up and at every `balance.every`-th step) and
  // thermo_modify lost (atoms beyond a fixed face are dropped): the Simulation's settings, read when used.
  BackendControls no_controls_;
  const BackendControls* controls_;
  int64_t lost_ = 0;  // atoms dropped so far (all ranks)
  GhostImages images_;
  GhostExchange exchange_;
  HalfNeighborList list_;
  std::vector<int64_t> full_offset_;  // deterministic mode: neighbours of owned atom i
  std::vector<int> full_nbr_;
  std::vector<double> box_hold_ = std::vector<double>(9, 0.0);  // box lo, hi, xy xz yz at the last build
  std::vector<double> xhold_;                                   // positions at the last build, 3 per atom
  Kokkos::View<double*, Kokkos::HostSpace> rho_, fp_, f_;       // per record (f: 3 per record)
  int f_owned_zero_ = -1;    // f_ of records [0, this) is zero (−1: nothing known)
  int rho_owned_zero_ = -1;  // rho_ of records [0, this) is zero (−1: nothing known)
  std::vector<double> eatom_;
  std::vector<double> rho_det_, fp_det_;    // deterministic mode: per owned atom / per record
  std::vector<double> dx_, dy_, dz_, fpj_;  // deterministic mode: one atom's neighbourhood
  std::vector<int> tj_;
  int ago_ = 0;
  bool rebuild_forced_ = false;    // force_rebuild: the next compute re-neighbours
  int inner_a_ = 0, inner_b_ = 0;  // split: atoms [0, a) and [nlocal − b, nlocal) list no ghost from a rank
  bool positions_pending_ = false;  // compute() started the position exchange; forces() ends it
  bool vote_pending_ = false;       // compute() started the rebuild vote; finish_rebuild_vote() reads it
  Comm::PendingAny vote_;
  bool restored_ = false;  // setup continues from restore_state instead of building afresh
  ForceResult result_;
  NeighborStats stats_;
  PhaseTimes times_;
};

}  // namespace wmd::md
