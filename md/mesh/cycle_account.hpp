// Per-step cycle account of the mesh backend on a wafer: the MD step's PE program (fabric/schedules/md_step)
// priced by fabric/'s program model, with every PE holding the busiest PE's neighbour counts. The total is
// the critical path (multicasts and passes overlap as far as the program lets them); each component is that
// activity's busy cycles on the busiest PE. Shared by the backend (measured counts) and `wafermd model`
// (counts from the initial configuration).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "fabric/hardware.hpp"
#include "fabric/schedule.hpp"

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
};

/// Prices one step of `w` on wafer `hw`.
StepCycles account_step(const StepWork& w, const fabric::HardwareSpec& hw);

/// report.json's cycles_per_step object.
nlohmann::json cycles_json(const StepCycles& c);

}  // namespace wmd::md::mesh
