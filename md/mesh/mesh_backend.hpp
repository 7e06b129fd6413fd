// The mesh backend: a wafer-scale mesh emulator. One atom per PE of a W×H grid; positions and F' reach other
// PEs only through fabric/ (window multicast delivered by the fast transport, coverage checked per request),
// global minima/maxima through fabric reductions; each PE computes its own atom's density, F' and force over
// its full neighbourhood (no Newton scatter) and a cycle account prices every step on a wafer preset.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fabric/fast_transport.hpp"
#include "fabric/hardware.hpp"
#include "md/backend.hpp"
#include "md/mesh/cycle_account.hpp"
#include "md/mesh/mapping.hpp"

namespace wmd::md::mesh {

/// Settings of the mesh backend (input keys mesh.*, deterministic).
struct MeshOptions {
  std::string wafer = "wse2";  // preset name or hardware YAML
  bool fp64 = false;           // PE arithmetic in fp64 (comparison mode) instead of fp32
  bool deterministic = false;  // the input's key; fp64 PEs always sum in ascending global id (deterministic)
  int chunk_pes = 16384;       // PEs streamed through the transport at once (bounds the receive buffer)
};

/// Counters of the fabric traffic and of the mapping's upkeep over the backend's life (all runs).
struct MeshCounters {
  int64_t steps = 0, forces = 0, rebuilds = 0, step_rebuilds = 0, swaps = 0, remaps = 0, checks = 0;
  double remap_cycles = 0;
  double sum_candidates_max = 0, sum_in_cut_max = 0;  // per force step, busiest PE
  int max_b = 0;
};

class MeshBackend : public Backend {
 public:
  explicit MeshBackend(MeshOptions opt);
  ~MeshBackend() override;
  std::string name() const override { return "mesh"; }
  void setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb, bool eatom) override;
  void compute(State& s, bool eatom) override;
  const ForceResult& result() const override { return result_; }
  void validate(const State& s, const potentials::EamTables& tables,
                const NeighborSettings& nb) const override;
  NeighborStats neighbor_stats() const override { return stats_; }
  PhaseTimes phase_times() const override { return times_; }
  /// PE assignment, window radius, positions at the last window scan, steps since, precision and counters.
  NamedArrays save_state() const override;
  /// Takes save_state's arrays; the next setup rescans the windows from the saved positions, no swaps.
  void restore_state(const NamedArrays& state) override;

  /// The current PE assignment (plain arrays: checkpoints can save them).
  const Mapping& mapping() const { return map_; }
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

  struct Impl;

 private:
  void rebuild(State& s, bool first);
  void rebuild_restored(State& s);
  bool rebuild_due(State& s);
  void make_transports();
  void scan_windows(const State& s);
  void swap_round(State& s);
  void remap_if_needed(State& s);
  template <class Real>
  void forces(State& s, bool eatom);

  MeshOptions opt_;
  fabric::HardwareSpec hw_;
  const potentials::EamTables* tables_ = nullptr;
  std::unique_ptr<Impl> impl_;
  NeighborSettings nb_;
  Mapping map_;
  int b_ = 1;
  int ago_ = 0;
  bool restored_ = false;  // setup continues from restore_state instead of rebuilding
  double cutneigh_ = 0;
  double box_lo_[3] = {0, 0, 0}, box_hi_[3] = {0, 0, 0};  // box of the current mapping
  // Per-PE state, SoA over logical PE ids.
  std::vector<int> type_;          // 0 for an empty PE
  std::vector<int64_t> id_;        // global atom id, 0 for an empty PE
  std::vector<double> rho_, fp_;   // ρ̄ and F'(ρ̄) of the PE's atom
  std::vector<double> xhold_;      // 3 per PE: position at the last rebuild
  std::vector<int32_t> nbr_off_;   // neighbour slots: nbr_src_[nbr_off_[p] .. nbr_off_[p+1])
  std::vector<int32_t> nbr_src_;   // logical PE of each neighbour, ascending global id
  std::vector<int8_t> nbr_shift_;  // periodic image of each neighbour: (sx+1) + 3(sy+1) + 9(sz+1)
  std::vector<int8_t> nbr_type_;   // type of each neighbour (it arrived with the window scan)
  ForceResult result_;
  NeighborStats stats_;
  PhaseTimes times_;
  MeshCounters counters_;
};

}  // namespace wmd::md::mesh
