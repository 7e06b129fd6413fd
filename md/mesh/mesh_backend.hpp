// The mesh backend: a wafer-scale mesh emulator. One atom per PE of a W×H grid; positions and F' reach other
// PEs only through fabric/ (window multicast delivered by the fast transport, every request checked against
// the schedule's coverage when the neighbour slots are formed), global sums and maxima through fabric
// reductions; each PE computes its own atom's density, F' and force over its full neighbourhood (no Newton
// scatter) and a cycle account prices every step on a wafer preset. On several MPI ranks the grid is tiled in
// bands of PE rows: a rank holds its band's PEs and atoms and receives b halo rows of each multicast payload
// from the bands around it; the mapping's upkeep at rebuilds (swaps, remaps, window radius) runs identically
// on every rank from a gathered copy of the positions, so any rank count gives the same bits.
//
// The rooms (docs/architecture.md, "The mesh backend's rooms"): band_transport (between row bands),
// mapping_upkeep (swaps, remaps), rebuild_trigger (vote or local criterion), window_scan (scans and their
// audit), pe_passes (fp32 and fp64), mesh_checkpoint (named fields) and cycle_account (the events every part
// reports). MeshBackend keeps set-up, compute and validation, and runs the rooms in a step's order.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fabric/hardware.hpp"
#include "md/core/comm.hpp"
#include "md/force/backend.hpp"
#include "md/mesh/band_transport.hpp"
#include "md/mesh/cycle_account.hpp"
#include "md/mesh/cycle_timeline.hpp"
#include "md/mesh/mapping.hpp"
#include "md/mesh/pe_memory.hpp"
#include "md/mesh/pe_passes.hpp"
#include "md/mesh/rebuild_trigger.hpp"

namespace wmd::md::mesh {

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
  // How atoms are placed on PEs (mesh.mapping): lattice-plane indices where the system has planes (found
  // when it is mapped afresh, followed as the crystal strains), else coordinates.
  MappingKind mapping = MappingKind::lattice;
  // The script's lattice, for mapping = sites (the cell columns are found from it and the atoms).
  const Lattice* lattice = nullptr;
  // Steps between the cycle timeline's samples (mesh.timeline_every; 0: no timeline).
  int timeline_every = 100;
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
  NeighborStats neighbor_stats() const override { return account_.stats(); }
  PhaseTimes phase_times() const override { return account_.times(); }
  /// The checkpoint state (mesh_checkpoint.hpp).
  NamedArrays save_state() const override;
  /// Takes save_state's arrays; the next setup rescans the windows from the saved positions, no swaps.
  void restore_state(const NamedArrays& state) override;

  /// Global atom id on each PE (0: empty), the PE assignment every rank keeps.
  const std::vector<int64_t>& pe_atom_ids() const { return pe_id_; }
  /// Window radius in use.
  int window_b() const { return b_; }
  /// The lattice mapping's planes (none found, or mesh.mapping bisection: empty).
  const LatticePlanes& lattice_planes() const { return planes_; }
  /// True while the atoms sit on their sites' PEs (mesh.mapping sites, not fallen back to the bisection).
  bool site_mapping() const { return sites_; }
  /// Counters since the backend was made.
  const MeshCounters& counters() const { return account_.counters(); }
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
  /// Tests: the local trigger (true) or the vote (false) whichever is cheaper (RebuildTrigger::choose).
  void force_trigger(bool local) { trigger_.force(local); }
  /// True when rebuilds are decided per PE (no global vote): RebuildTrigger::local.
  bool local_trigger() const { return trigger_.local(); }

 private:
  void rebuild(State& s, bool first);
  /// Fits shrink-wrapped faces to the atoms (collective), charged as one fabric max-reduction.
  void fit_box(State& s);
  /// Charges `n` fabric reductions of `words` words (op: sum or max) outside the step's program.
  void charge_reductions(int n, int words, fabric::ReduceOp op);
  void rebuild_restored(State& s);
  void local_upkeep(State& s);
  /// The band's transports for the current grid and b (reported to the account).
  void connect();
  // mesh.mapping sites: the patch mapping of the gathered atoms on the wafer's grid (false, with the reason
  // kept, where the atoms do not sit one per site of the script's lattice).
  bool map_sites(const Box& box, const AllAtoms& g, Mapping& m, int& b);
  // A window that no longer holds every pair: the sites mapped afresh, or the bisection where that fails.
  void remap_sites(const Box& box, const AllAtoms& g);
  /// Scans the windows of the band's PEs from the gathered atoms (map_.atom_of indexes them).
  void scan(const Box& box, const AllAtoms& g, const std::vector<char>* only = nullptr);
  void forces(State& s, bool eatom, bool tally = true);
  /// The grid, window and words of a step (StepWork less the measured counts).
  StepWork step_shape() const;

  MeshOptions opt_;
  const Comm* comm_ = nullptr;
  fabric::HardwareSpec hw_;
  const potentials::EamTables* tables_ = nullptr;
  NeighborSettings nb_;
  Mapping map_;  // grid and wrap; its atom_of/pe_of index the gathered atoms, during a rebuild only
  int b_ = 1;
  bool sites_ = false;       // mesh.mapping sites in effect: atoms on their sites' PEs, no swaps
  std::string site_reason_;  // why mesh.mapping sites could not map the atoms (empty: it could)
  LatticePlanes planes_;     // the lattice mapping's planes (none: keys are coordinates)
  bool restored_ = false;    // setup continues from restore_state instead of rebuilding
  bool shrink_ = false;      // the box has shrink-wrapped faces (s, m): fitted at every global rebuild
  double cutneigh_ = 0;
  double box_lo_[3] = {0, 0, 0}, box_hi_[3] = {0, 0, 0};  // box of the current mapping
  int64_t mapped_atoms_ = 0;                              // atoms in the current mapping (all ranks)
  int64_t mapped_edits_ = 0;                              // State::edits when the atoms were last mapped
  std::vector<int64_t> pe_id_;  // [pe] global id of the PE's atom, 0 for an empty PE (every rank, every PE)
  BandTransport bands_;
  BandPes pes_;
  RebuildTrigger trigger_;
  PePasses passes_;
  CycleAccount account_;
  CycleTimeline timeline_;  // the account over simulated time (report.json fabric.timeline)
  ForceResult result_;
};

}  // namespace wmd::md::mesh
