// Per-step cycle account of the mesh backend on a wafer: the MD step's PE program (fabric/schedules/md_step)
// priced by fabric/'s program model, with every PE holding the busiest PE's neighbour counts. The total is
// the critical path (multicasts and passes overlap as far as the program lets them); each component is that
// activity's busy cycles on the busiest PE. Shared by the backend (measured counts) and `wafermd model`
// (counts from the initial configuration). The backend's parts report what they did to one CycleAccount,
// whose counters give the measured counts.
#pragma once
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "fabric/hardware.hpp"
#include "fabric/schedule.hpp"
#include "fabric/schedules/md_step.hpp"
#include "md/force/backend.hpp"

namespace wmd::md::mesh {

/// What one step costs depends on these counts (per-PE figures are of the busiest PE, which gates the step).
struct StepWork {
  fabric::Grid grid;
  bool wrap = false;
  int b = 1;
  int position_words = 3;       // words per PE of the position multicast (3 fp32, 6 fp64)
  int fp_words = 1;             // words per PE of the F' multicast
  int swap_words = 11;          // words of one atom record moved by a swap
  double candidates = 0;        // neighbour-list entries (pairs within cutoff + skin) of the busiest PE
  double in_cut = 0;            // of those, pairs within the potential's cutoff
  double rebuild_interval = 1;  // steps between neighbour rebuilds (measured, or estimated by the model)
  double checks_per_step = 1;   // rebuild-trigger reductions per step (LAMMPS `check yes`: one per step)
  bool local_trigger = false;   // rebuilds decided per PE from the positions' flag words (no vote)
  bool newton = false;          // each pair once, the neighbour's share summed back (fabric MdStepSpec)
  double remap_cycles_per_step = 0;
  double style_reduction_cycles_per_step = 0;  // fixes' and outputs' global sums (Backend::charge)
  bool zbl = false;                            // the pair potential has a ZBL term (hybrid/overlay … zbl)
  double zbl_pairs = 0;                        // pairs within its outer cut-off of the busiest PE
  fabric::TableLayout table_layout = fabric::TableLayout::Spline7;  // how a PE keeps the potential's tables
  fabric::TableShape tables;    // their sizes (0 knots: not counted in the memory account)
  bool one_species = true;      // one ρ′ function for every pair
  bool keep_distances = false;  // the density pass keeps r and the interval for the force pass
};

/// Cycles per step by component, the predicted speed and the energy of one step. Components are busy cycles
/// of the busiest PE (communication: the exchange's wire time) and may sum to more than `total`.
struct StepCycles {
  double multicast_positions = 0, multicast_fp = 0, reductions = 0, compute = 0, swap = 0, total = 0;
  double reverse_sums = 0;  // the Newton variant's sums back (0 for the full-window step)
  double compute_pairs = 0, compute_rebuild = 0, compute_other = 0;  // parts of `compute`
  double compute_zbl = 0;  // of compute_pairs: the ZBL term's test per in-cut pair and its close pairs
  double additive = 0;     // the same work with nothing overlapped
  std::vector<std::pair<std::string, double>> critical_path;  // cycles each activity holds the path
  double steps_per_second = 0;
  double energy_per_step_j = 0;
  fabric::PeMemory memory;  // bytes per PE of the step's program (the rebuild step's buffers included)
  bool fits = true;         // memory.total() within the PE's memory
};

/// Prices one step of `w` on wafer `hw`.
StepCycles account_step(const StepWork& w, const fabric::HardwareSpec& hw);

/// report.json's cycles_per_step object.
nlohmann::json cycles_json(const StepCycles& c);

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

// Every counter of the cycle account under its own name (the audit's are a test switch's and not kept).
template <class F>
inline void for_each_counter(MeshCounters& c, F f) {
  f("account.steps", c.steps);
  f("account.forces", c.forces);
  f("account.rebuilds", c.rebuilds);
  f("account.step_rebuilds", c.step_rebuilds);
  f("account.swaps", c.swaps);
  f("account.remaps", c.remaps);
  f("account.rebuild_checks", c.checks);
  f("account.remap_cycles", c.remap_cycles);
  f("account.sum_busiest_candidates", c.sum_candidates_max);
  f("account.sum_busiest_in_cut", c.sum_in_cut_max);
  f("account.sum_busiest_zbl", c.sum_zbl_max);
  f("account.max_b", c.max_b);
  f("account.style_reductions", c.style_reductions);
  f("account.style_reduction_cycles", c.style_reduction_cycles);
  f("account.rescan_steps", c.rescan_steps);
  f("account.pe_rescans", c.pe_rescans);
  f("account.guard_misses", c.guard_misses);
}

/// `shape` with the average step between two counter snapshots (from → to): the busiest PE's counts per force
/// pass, the rebuild interval, votes, remap and style-reduction cycles per step. With no step between them:
/// no rebuild and one vote per step, as LAMMPS's `check yes`.
StepWork average_work(StepWork shape, const MeshCounters& from, const MeshCounters& to);

/// The one place the mesh backend's parts report their events to: counters over the backend's life
/// (checkpointed), and the run's neighbour statistics and phase times (LAMMPS's end-of-run summary). Every
/// count is the same on every rank (the events are global decisions, or summed before they are reported).
class CycleAccount {
 public:
  /// A run's set-up: neighbour statistics and times start again; the counters go on.
  void start_run() { stats_ = NeighborStats{}, times_ = PhaseTimes{}; }
  /// A step's force computation was asked for.
  void step() { ++c_.steps; }
  /// A force pass ran: the busiest PE's neighbour slots, pairs within the cut-off and ZBL pairs.
  void force_pass(int candidates, int in_cut, int zbl) {
    ++c_.forces;
    c_.sum_candidates_max += candidates;
    c_.sum_in_cut_max += in_cut;
    c_.sum_zbl_max += zbl;
  }
  /// The rebuild vote ran; `dangerous`: it asked for a rebuild at the first step it could (LAMMPS's count).
  void vote(bool rebuild, bool dangerous) {
    ++c_.checks;
    if (rebuild && dangerous) ++stats_.dangerous;
  }
  /// A global rebuild (wrap, swaps or a fresh mapping, every window scanned).
  void rebuild() { ++c_.rebuilds; }
  /// A step's list upkeep rebuilt (globally, or some PEs rescanned: rescan_step).
  void step_rebuild() { ++c_.step_rebuilds; }
  /// The local criterion: a step on which `pe_rescans` PEs rescanned their windows.
  void rescan_step(int64_t pe_rescans) {
    ++c_.rescan_steps;
    ++c_.step_rebuilds;
    c_.pe_rescans += pe_rescans;
  }
  /// New neighbour slots, `slots` of them on this rank (LAMMPS's neighbour-list build).
  void lists_built(int64_t slots) {
    ++stats_.builds;
    stats_.pairs = slots;
    stats_.ghosts = 0;
  }
  void swaps(int64_t n) { c_.swaps += n; }
  /// Atoms moved to a fresh mapping through the fabric, `cycles` of swap schedules.
  void remap(double cycles) {
    c_.remap_cycles += cycles;
    ++c_.remaps;
  }
  /// Transports made for window radius b.
  void window(int b) { c_.max_b = std::max(c_.max_b, b); }
  /// The host-side window guard failed.
  void guard_miss() { ++c_.guard_misses; }
  /// A brute-force list audit found `missing` pair entries absent.
  void audit(int64_t missing) {
    c_.audit_missing += missing;
    ++c_.audit_steps;
  }
  /// Fixes' and outputs' global sums: n fabric reductions of `cycles_each` cycles.
  void style_reductions(int n, double cycles_each) {
    c_.style_reductions += n;
    c_.style_reduction_cycles += n * cycles_each;
  }
  void neighbour_seconds(double s) { times_.neigh += s; }
  void comm_seconds(double s) { times_.comm += s; }
  void pair_seconds(double s) { times_.pair += s; }

  const MeshCounters& counters() const { return c_; }
  /// Puts counters back (a checkpoint's, or a restored set-up's after its uncounted force pass).
  void set_counters(const MeshCounters& c) { c_ = c; }
  const NeighborStats& stats() const { return stats_; }
  const PhaseTimes& times() const { return times_; }

  /// An average step so far: `shape` gives the grid, window, words and trigger; the counters the rest.
  StepCycles step_cycles(StepWork shape, const fabric::HardwareSpec& hw) const;
  /// report.json's `fabric` counts and prices (the caller adds what describes the mapping).
  nlohmann::json report(const StepWork& shape, const fabric::HardwareSpec& hw) const;

 private:
  MeshCounters c_;
  NeighborStats stats_;
  PhaseTimes times_;
};

}  // namespace wmd::md::mesh
