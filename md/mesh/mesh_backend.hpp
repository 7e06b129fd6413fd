// The mesh backend: a wafer-scale mesh emulator. One atom per PE of a W×H grid; positions and F' reach other
// PEs only through fabric/ (window multicast delivered by the fast transport, every request checked against
// the schedule's coverage when the neighbour slots are formed), global sums and maxima through fabric
// reductions; each PE computes its own atom's density, F' and force over its full neighbourhood (no Newton
// scatter) and a cycle account prices every step on a wafer preset. On several MPI ranks the grid is tiled in
// bands of PE rows: a rank holds its band's PEs and atoms and receives b halo rows of each multicast payload
// from the bands around it; the mapping's upkeep at rebuilds (swaps, remaps, window radius) runs identically
// on every rank from a gathered copy of the positions, so any rank count gives the same bits.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fabric/fast_transport.hpp"
#include "fabric/hardware.hpp"
#include "md/core/comm.hpp"
#include "md/force/backend.hpp"
#include "md/mesh/cycle_account.hpp"
#include "md/mesh/mapping.hpp"

namespace wmd::md::mesh {

struct ShiftOffsets32;
struct PeBand32;

/// Settings of the mesh backend (input keys mesh.*, deterministic).
struct MeshOptions {
  std::string wafer = "wse2";  // preset name or hardware YAML
  bool fp64 = false;           // PE arithmetic in fp64 (comparison mode) instead of fp32
  bool deterministic = false;  // the input's key; fp64 PEs always sum in ascending global id (deterministic)
  int chunk_pes = 1024;        // PEs streamed through the transport at once (bounds the receive buffer)
  // The host-side window guard (every pair within cutoff + skin of the atoms' references inside the window):
  // false remaps when it fails; true only counts the failures (MeshCounters::guard_misses), for tests that
  // show the local rebuild criterion and the swaps keep every pair without it.
  bool guard_report_only = false;
  // A brute-force check after every step's list upkeep that each pair within the cutoff is in both PEs'
  // lists (one rank only; MeshCounters::audit_missing). For tests: it costs an all-pairs binning per step.
  bool audit_lists = false;
};

/// Counters of the fabric traffic and of the mapping's upkeep over the backend's life (all runs).
struct MeshCounters {
  int64_t steps = 0, forces = 0, rebuilds = 0, step_rebuilds = 0, swaps = 0, remaps = 0, checks = 0;
  double remap_cycles = 0;
  int64_t style_reductions = 0;       // global reductions of fixes and outputs (Backend::charge)
  double style_reduction_cycles = 0;  // their cost on the wafer
  double sum_candidates_max = 0, sum_in_cut_max = 0;  // per force step, busiest PE
  double sum_zbl_max = 0;  // per force step, the most pairs within the ZBL term's outer cut-off of a PE
  int max_b = 0;
  // The local rebuild criterion (no vote): steps on which some PE rescanned its window, PE rescans, swap
  // exchanges between neighbour pairs, guard failures seen (remapped, or counted in report-only mode).
  int64_t rescan_steps = 0, pe_rescans = 0, guard_misses = 0;
  int64_t audit_steps = 0, audit_missing = 0;  // MeshOptions::audit_lists
};

class MeshBackend : public Backend {
 public:
  /// The emulator on the ranks of `comm` (one rank when null).
  explicit MeshBackend(MeshOptions opt, const Comm* comm = nullptr);
  ~MeshBackend() override;
  std::string name() const override { return "mesh"; }
  void setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb, bool eatom) override;
  void compute(State& s, bool eatom, bool tally) override;
  const ForceResult& result() const override { return result_; }
  void validate(const State& s, const potentials::EamTables& tables,
                const NeighborSettings& nb) const override;
  NeighborStats neighbor_stats() const override { return stats_; }
  PhaseTimes phase_times() const override { return times_; }
  /// PE assignment, window radius, positions at the last window scan, steps since, precision and counters.
  NamedArrays save_state() const override;
  /// Takes save_state's arrays; the next setup rescans the windows from the saved positions, no swaps.
  void restore_state(const NamedArrays& state) override;

  /// Global atom id on each PE (0: empty), the PE assignment every rank keeps.
  const std::vector<int64_t>& pe_atom_ids() const { return pe_id_; }
  /// Window radius in use.
  int window_b() const { return b_; }
  /// Counters since setup.
  const MeshCounters& counters() const { return counters_; }
  /// The cycle account of an average step so far on the chosen wafer.
  StepCycles step_cycles() const;
  /// report.json's `fabric` object.
  nlohmann::json fabric_json() const;
  /// Lines for the log after setup (grid, b, wafer).
  std::vector<std::string> setup_notes() const override;
  void add_report(nlohmann::json& report) const override { report["fabric"] = fabric_json(); }
  /// Prices the fixes' and outputs' global reductions of a step as fabric reductions over the grid.
  void charge(const MeshWork& work) override;
  /// Test switches (MeshOptions::guard_report_only, audit_lists), settable after construction.
  void set_checks(bool guard_report_only, bool audit_lists) {
    opt_.guard_report_only = guard_report_only;
    opt_.audit_lists = audit_lists;
  }
  /// Tests: the local trigger (true) or the vote (false) whichever is cheaper (choose_trigger).
  void force_trigger(bool local) { forced_trigger_ = local ? 1 : 0; }
  /// True when rebuilds are decided per PE (no global vote): `check yes`, not `once`, not deterministic, and
  /// cheaper than the vote on this system's wafer program (choose_trigger).
  bool local_trigger() const { return nb_.check && !nb_.once && !opt_.deterministic && local_choice_; }

  struct Impl;
  struct AllAtoms;

 private:
  void rebuild(State& s, bool first);
  void rebuild_restored(State& s);
  bool rebuild_due(State& s);
  void local_upkeep(State& s);
  void choose_trigger();
  void audit_lists(const State& s);
  void set_bands();
  void make_transports();
  /// Scans the windows of the band's PEs (only those marked in `only`, band-indexed, when given; the others
  /// keep their slots) from the positions in `g`.
  void scan_windows(const Box& box, const AllAtoms& g, const std::vector<char>* only = nullptr);
  /// One odd-even transposition round; with `active` (per PE) only pairs with an active PE exchange, and
  /// `swapped` (per PE) marks the PEs whose atom changed.
  void swap_round(const Box& box, const AllAtoms& g, const std::vector<uint32_t>* active = nullptr,
                  std::vector<uint32_t>* swapped = nullptr);
  void remap_if_needed(const Box& box, const AllAtoms& g);
  // Points map_.atom_of/pe_of at the gathered atoms `g` from each PE's atom id (pe_id_).
  void link_gathered(const AllAtoms& g);
  void charge_edit_remap(const std::vector<int64_t>& old_pe_id, int old_width, int old_height);
  void distribute(State& s, const AllAtoms& g);
  void index_band(const State& s);
  void halo_exchange(std::vector<uint32_t>& payload, int words) const;
  void fabric_reduce(fabric::FastTransport& t, const uint32_t* band_values, uint32_t* out) const;
  struct Hood64;  // an fp64 PE's neighbourhood reader (mesh_backend.cpp)
  /// What a force step learns on the way: the busiest PE's neighbour slots and pairs within the cutoff (they
  /// price the step) and the seconds its halo exchanges took (comm, not pair time).
  struct StepLoad {
    int busiest_cand = 0, busiest_cut = 0, busiest_zbl = 0;
    double halo_seconds = 0.0;
  };
  /// One force step over the band: positions out, the PE passes of the chosen precision, the energy/virial
  /// sums. With tally false (fp32) the virial and the global energy sum are skipped; fp64 always tallies.
  void forces(State& s, bool eatom, bool tally = true);
  /// The band's positions into the multicast payload (Real: the PE precision), and the halo rows.
  template <class Real>
  void multicast_positions(const Atoms& a, StepLoad& load);
  std::vector<int> chunk_bounds(int pw) const;
  void pe_passes_fp32(const Box& box, Atoms& a, bool tally, StepLoad& load);
  void receive_positions_fp32(int d0, int d1, std::vector<uint32_t>& planes);
  PeBand32 band32(int d0, const std::vector<uint32_t>& planes, const float* fp) const;
  void density_chunk_fp32(int d0, int d1, const ShiftOffsets32& shifts, std::vector<uint32_t>& planes,
                          StepLoad& load);
  void force_chunk_fp32(int d0, int d1, const ShiftOffsets32& shifts, const std::vector<uint32_t>& planes,
                        bool tally, Atoms& a, StepLoad& load);
  void pe_passes_fp64(const Box& box, Atoms& a, StepLoad& load);
  void density_chunk_fp64(int d0, int d1, const Hood64& hood, StepLoad& load);
  void force_chunk_fp64(int d0, int d1, const Hood64& hood, Atoms& a, StepLoad& load);
  void count_busiest_pe(const StepLoad& load);
  void sum_energy_virial_fp64();
  void sum_energy_virial_fp32();

  MeshOptions opt_;
  const Comm* comm_ = nullptr;
  fabric::HardwareSpec hw_;
  const potentials::EamTables* tables_ = nullptr;
  std::unique_ptr<Impl> impl_;
  NeighborSettings nb_;
  Mapping map_;  // grid and wrap; its atom_of/pe_of index the gathered atoms, during a rebuild only
  int b_ = 1;
  int ago_ = 0;
  bool restored_ = false;     // setup continues from restore_state instead of rebuilding
  bool local_choice_ = true;  // the local trigger is cheaper than the vote for this system (choose_trigger)
  int forced_trigger_ = -1;   // force_trigger: -1 none, 0 vote, 1 local
  double cutneigh_ = 0;
  double box_lo_[3] = {0, 0, 0}, box_hi_[3] = {0, 0, 0};  // box of the current mapping
  int64_t mapped_atoms_ = 0;                              // atoms in the current mapping (all ranks)
  int64_t mapped_edits_ = 0;                              // State::edits when the atoms were last mapped
  std::vector<int64_t> pe_id_;  // [pe] global id of the PE's atom, 0 for an empty PE (every rank, every PE)
  // This rank's band of logical PE rows [row0_, row1_), PEs [pe0_, pe1_); rank_of_row_ for every row.
  int row0_ = 0, row1_ = 0, pe0_ = 0, pe1_ = 0;
  std::vector<int> rank_of_row_;
  // Per-PE state of the band, SoA, index pe − pe0_.
  std::vector<int> local_;         // this rank's atom index of the PE's atom, −1 for an empty PE
  std::vector<int> type_;          // 0 for an empty PE
  std::vector<double> rho_, fp_;   // ρ̄ and F'(ρ̄) of the PE's atom
  std::vector<double> xhold_;      // 3 per PE: the atom's reference position (its lists are built from these)
  std::vector<uint32_t> active_;   // [pe] every PE: its atom's reference was reset last check (local trigger)
  std::vector<int32_t> nbr_off_;   // neighbour slots: nbr_src_[nbr_off_[q] .. nbr_off_[q+1])
  std::vector<int32_t> nbr_src_;   // logical PE of each neighbour, ascending global id
  std::vector<int8_t> nbr_shift_;  // periodic image of each neighbour: (sx+1) + 3(sy+1) + 9(sz+1)
  std::vector<int8_t> nbr_type_;   // type of each neighbour (it arrived with the window scan)
  ForceResult result_;
  NeighborStats stats_;
  PhaseTimes times_;
  MeshCounters counters_;
};

}  // namespace wmd::md::mesh
