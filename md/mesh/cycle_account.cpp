#include "md/mesh/cycle_account.hpp"

#include <algorithm>
#include <cmath>

#include "fabric/cost_model.hpp"
#include "fabric/program_run.hpp"
#include "fabric/schedules/md_step.hpp"

namespace wmd::md::mesh {
namespace {

using fabric::Instr;
using O = fabric::OpClass;

// The ZBL term on a PE (scalar forms, as fabric's md_step counts the EAM pair work): every in-cut pair is
// tested against the outer cut-off; a pair inside it loads its type pair's 10 coefficients, evaluates four
// exponentials (argument −d·r, then range reduction x·log2e, rounding and remainder, a degree-6
// polynomial and the 2ⁿ scale: Fmul 2, Fadd 2, Fma 6 each), the screening sums and their derivative, E and
// E', the switch polynomial, and adds its force and half energy into the pair's.
const std::vector<Instr> kZblCheck = {{O::Fminmax, 1}};
const std::vector<Instr> kZblPair = {
    {O::MemWord, 10}, {O::Fmul, 8}, {O::Fadd, 8}, {O::Fma, 24}, {O::Fmul, 1}, {O::Fma, 3},
    {O::Fmul, 4},     {O::Fma, 4},  {O::Fma, 1},  {O::Fmul, 4}, {O::Fadd, 1}, {O::Fminmax, 1},
    {O::Fadd, 3},     {O::Fmul, 3}, {O::Fma, 2},  {O::Fmul, 1}, {O::Fadd, 1}, {O::Fma, 1}};

}  // namespace

StepCycles account_step(const StepWork& w, const fabric::HardwareSpec& hw) {
  using namespace fabric;
  StepCycles c;
  MdStepSpec spec;
  spec.grid = w.grid;
  spec.wrap = w.wrap;
  spec.b = w.b;
  spec.position_words = w.position_words;
  spec.fp_words = w.fp_words;
  spec.swap_words = w.swap_words;
  spec.scan_words = w.position_words + 2;  // the scan also needs each slot's type and id
  // Every PE holds the busiest PE's counts (clipped to the window slots an edge PE has), so the critical path
  // is the busiest PE's.
  const int window = (2 * w.b + 1) * (2 * w.b + 1) - 1;
  const int cand = std::min(window, static_cast<int>(std::ceil(w.candidates)));
  uniform_neighbours(spec, cand, std::min(cand, static_cast<int>(std::ceil(w.in_cut))));
  // Steps mix: with or without the rebuild vote (checks_per_step), with or without a rebuild (1/interval).
  spec.local_trigger = w.local_trigger;
  spec.newton = w.newton;
  spec.table_layout = w.table_layout;
  spec.tables = w.tables;
  spec.one_species = w.one_species;
  spec.keep_distances = w.keep_distances;
  c.memory = md_step_memory(spec, hw);
  c.fits = c.memory.total() <= hw.sram_bytes_per_pe;
  const double vote = w.local_trigger ? 0.0 : std::clamp(w.checks_per_step, 0.0, 1.0);
  const double rebuild = 1.0 / std::max(1.0, w.rebuild_interval);
  std::vector<double> path(MdActivities, 0), busy(MdActivities, 0);
  for (int v = 0; v < 2; ++v)
    for (int r = 0; r < 2; ++r) {
      const double weight = (v ? vote : 1 - vote) * (r ? rebuild : 1 - rebuild);
      if (weight <= 0) continue;
      spec.vote = v == 1;
      spec.rebuild = r == 1;
      const PeProgram p = build_md_step(spec, hw);
      const ProgramTimes t = model_program(p, hw);
      c.total += weight * static_cast<double>(t.cycles);
      c.additive += weight * static_cast<double>(additive_cycles(p, hw));
      for (int a = 0; a < MdActivities; ++a) {
        path[a] += weight * static_cast<double>(t.path_cycles[a]);
        busy[a] += weight * static_cast<double>(t.activity[a]);
      }
    }
  // The ZBL term's work is the force pass's, on the busiest PE (its in-cut pairs tested, its close pairs
  // evaluated): it lengthens that pass, and so the path, by its cycles.
  if (w.zbl) {
    c.compute_zbl = std::ceil(w.in_cut) * instr_cycles(kZblCheck, hw.compute) +
                    std::ceil(w.zbl_pairs) * instr_cycles(kZblPair, hw.compute);
    busy[ActForce] += c.compute_zbl;
    path[ActForce] += c.compute_zbl;
    c.total += c.compute_zbl;
    c.additive += c.compute_zbl;
  }
  // Remaps and the fixes' sums are exchanges outside the step's program: they add to the path.
  const double extra_reductions = w.style_reduction_cycles_per_step;
  c.multicast_positions = busy[ActPositions];
  c.multicast_fp = busy[ActFp];
  c.reverse_sums = busy[ActReverse];
  c.reductions = busy[ActReductions] + extra_reductions;
  c.swap = busy[ActSwap] + w.remap_cycles_per_step;
  c.compute_pairs = busy[ActDensity] + busy[ActForce];
  c.compute_rebuild = busy[ActRebuild];
  c.compute_other = busy[ActEmbedding] + busy[ActIntegration];
  c.compute = c.compute_pairs + c.compute_rebuild + c.compute_other;
  c.total += extra_reductions + w.remap_cycles_per_step;
  c.additive += extra_reductions + w.remap_cycles_per_step;
  path[ActReductions] += extra_reductions;
  path[ActSwap] += w.remap_cycles_per_step;
  // In step order (integration: drift and closing kick; rebuild: trigger, swap compares, window scan).
  const std::pair<int, const char*> order[] = {{ActIntegration, "integration"},
                                               {ActRebuild, "rebuild"},
                                               {ActReductions, "reductions"},
                                               {ActSwap, "swap"},
                                               {ActPositions, "multicast_positions"},
                                               {ActDensity, "density"},
                                               {ActEmbedding, "embedding"},
                                               {ActFp, "multicast_fp"},
                                               {ActForce, "force"},
                                               {ActReverse, "reverse_sums"}};
  for (const auto& [a, name] : order)
    if (path[a] > 0) c.critical_path.emplace_back(name, path[a]);
  c.steps_per_second = c.total > 0 ? hw.clock_hz / c.total : 0.0;
  c.energy_per_step_j = hw.power_per_pe_watts * static_cast<double>(hw.pe_count) * c.total / hw.clock_hz;
  return c;
}

nlohmann::json cycles_json(const StepCycles& c) {
  nlohmann::json path = nlohmann::json::array();
  for (const auto& [name, cycles] : c.critical_path) path.push_back({{"activity", name}, {"cycles", cycles}});
  return {{"multicast_positions", c.multicast_positions},
          {"multicast_fp", c.multicast_fp},
          {"reductions", c.reductions},
          {"compute", c.compute},
          {"swap", c.swap},
          {"reverse_sums", c.reverse_sums},
          {"total", c.total},
          {"additive", c.additive},
          {"critical_path", path},
          {"bytes_per_pe",
           {{"code", c.memory.code},
            {"tables", c.memory.tables},
            {"buffers", c.memory.buffers},
            {"lists", c.memory.lists},
            {"atom", c.memory.atom},
            {"total", c.memory.total()}}},
          {"fits", c.fits},
          {"compute_detail",
           {{"pairs", c.compute_pairs},
            {"zbl", c.compute_zbl},
            {"rebuild", c.compute_rebuild},
            {"other", c.compute_other}}}};
}

StepWork average_work(StepWork w, const MeshCounters& from, const MeshCounters& to) {
  const double forces = std::max(1.0, static_cast<double>(to.forces - from.forces));
  w.candidates = (to.sum_candidates_max - from.sum_candidates_max) / forces;
  w.in_cut = (to.sum_in_cut_max - from.sum_in_cut_max) / forces;
  w.zbl_pairs = (to.sum_zbl_max - from.sum_zbl_max) / forces;
  const int64_t counted = to.steps - from.steps;
  const double steps = std::max(1.0, static_cast<double>(counted));
  w.rebuild_interval = steps / std::max(1.0, static_cast<double>(to.step_rebuilds - from.step_rebuilds));
  w.checks_per_step = counted > 0 ? static_cast<double>(to.checks - from.checks) / steps : 1.0;
  w.remap_cycles_per_step = (to.remap_cycles - from.remap_cycles) / steps;
  w.style_reduction_cycles_per_step = (to.style_reduction_cycles - from.style_reduction_cycles) / steps;
  return w;
}

StepCycles CycleAccount::step_cycles(StepWork w, const fabric::HardwareSpec& hw) const {
  return account_step(average_work(w, MeshCounters{}, c_), hw);
}

nlohmann::json CycleAccount::report(const StepWork& shape, const fabric::HardwareSpec& hw) const {
  const StepCycles c = step_cycles(shape, hw);
  return {{"cycles_per_step", cycles_json(c)},
          {"predicted_steps_per_second", c.steps_per_second},
          {"energy_per_step_joules", c.energy_per_step_j},
          {"swaps", c_.swaps},
          {"remaps", c_.remaps},
          {"rebuilds", c_.rebuilds},
          {"rebuild_checks", c_.checks},
          {"style_reductions", c_.style_reductions},
          {"remap_cycles", c_.remap_cycles},
          {"rescan_steps", c_.rescan_steps},
          {"pe_rescans", c_.pe_rescans},
          {"guard_misses", c_.guard_misses}};
}

}  // namespace wmd::md::mesh
