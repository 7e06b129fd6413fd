#include "md/mesh/cycle_account.hpp"

#include <algorithm>

#include "fabric/cost_model.hpp"

namespace wmd::md::mesh {

StepCycles account_step(const StepWork& w, const fabric::HardwareSpec& hw) {
  using fabric::ScheduleKind;
  using fabric::ScheduleSpec;
  StepCycles c;
  const ScheduleSpec pos{ScheduleKind::WindowMulticast, w.grid, w.b, w.position_words, w.wrap};
  const ScheduleSpec fp{ScheduleKind::WindowMulticast, w.grid, w.b, w.fp_words, w.wrap};
  const ScheduleSpec check{ScheduleKind::Reduction, w.grid, 1, 1, w.wrap, fabric::ReduceOp::Max};
  const ScheduleSpec swap{ScheduleKind::NeighbourSwap, w.grid, 1, w.swap_words, w.wrap};
  c.multicast_positions = static_cast<double>(fabric::model_schedule(pos, hw).cycles);
  c.multicast_fp = static_cast<double>(fabric::model_schedule(fp, hw).cycles);
  c.reductions = w.checks_per_step * static_cast<double>(fabric::model_schedule(check, hw).cycles) +
                 w.style_reduction_cycles_per_step;
  const double interval = std::max(1.0, w.rebuild_interval);
  c.swap = static_cast<double>(fabric::model_schedule(swap, hw).cycles) / interval + w.remap_cycles_per_step;

  // Per-PE compute, counted by operation class (docs/fabric.md, "Mesh backend cycle account").
  const fabric::ComputeCycles& k = hw.compute;
  // A candidate: load its 3 position words, displacement (3 sub), r² (mul + 2 fma), compare with the cutoff.
  const double candidate = 3 * k.mem_word + 3 * k.fadd + k.fmul + 2 * k.fma + k.fminmax;
  // Density of one pair: sqrt, table lookup (fma, 2 clamps), cubic value (4 coefficient loads, 3 fma), add.
  const double density_pair = k.fsqrt + k.fma + 2 * k.fminmax + 4 * k.mem_word + 3 * k.fma + k.fadd;
  // Force of one pair: sqrt, 1/r, lookup, three derivative cubics (3 loads, 2 fma each), one value cubic,
  // the neighbour's F', φ and φ' (3 mul), fpair (2 fma, 1 mul) and the three force components (3 fma).
  const double force_pair = k.fsqrt + k.fdiv + k.fma + 2 * k.fminmax + 3 * (3 * k.mem_word + 2 * k.fma) +
                            (4 * k.mem_word + 3 * k.fma) + k.mem_word + 3 * k.fmul + 2 * k.fma + k.fmul +
                            3 * k.fma;
  // Embedding of the own atom: lookup, value and derivative cubics.
  const double embed = k.fma + 2 * k.fminmax + 7 * k.mem_word + 5 * k.fma + k.fadd;
  // Velocity Verlet of the own atom: two half kicks and a drift (9 fma) with loads and stores of x, v, f.
  const double integrate = 9 * k.fma + 15 * k.mem_word;
  // Rebuild trigger: displacement since the last build (3 sub, 3 fma) and a compare.
  const double trigger = 3 * k.fadd + 3 * k.fma + k.fminmax;
  // Rebuild: every window slot is a candidate plus the periodic-shift choice (3 compares) and a list store.
  const double window = (2.0 * w.b + 1) * (2.0 * w.b + 1) - 1;
  const double scan = window * (candidate + 3 * k.fminmax) + w.candidates * 2 * k.mem_word;
  // Swaps: four phases, each a key compare and the record kept or replaced.
  const double swap_compute = 4 * (2 * k.fminmax + w.swap_words * k.mem_word);
  c.compute_pairs = 2 * w.candidates * candidate + w.in_cut * (density_pair + force_pair);
  c.compute_rebuild = (scan + swap_compute) / interval;
  c.compute_other = embed + integrate + trigger;
  c.compute = c.compute_pairs + c.compute_rebuild + c.compute_other;
  c.total = c.multicast_positions + c.multicast_fp + c.reductions + c.compute + c.swap;
  c.steps_per_second = c.total > 0 ? hw.clock_hz / c.total : 0.0;
  c.energy_per_step_j = hw.power_per_pe_watts * static_cast<double>(hw.pe_count) * c.total / hw.clock_hz;
  return c;
}

nlohmann::json cycles_json(const StepCycles& c) {
  return {{"multicast_positions", c.multicast_positions},
          {"multicast_fp", c.multicast_fp},
          {"reductions", c.reductions},
          {"compute", c.compute},
          {"swap", c.swap},
          {"total", c.total},
          {"compute_detail",
           {{"pairs", c.compute_pairs}, {"rebuild", c.compute_rebuild}, {"other", c.compute_other}}}};
}

}  // namespace wmd::md::mesh
