#include "md/programs/model_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "base/error.hpp"
#include "fabric/hardware.hpp"
#include "io/lammps_script.hpp"
#include "io/output_files.hpp"
#include "io/yaml_input.hpp"
#include "md/mesh/cycle_account.hpp"
#include "md/mesh/cycle_timeline.hpp"
#include "md/mesh/lattice_patches.hpp"
#include "md/mesh/mapping.hpp"
#include "md/programs/lockstep.hpp"
#include "md/programs/root_reads.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

// What the model needs from the input: the system at its first run.
struct Snapshot {
  State state;
  double cutmax = 0;
  NeighborSettings nb;
  fabric::TableShape tables;
  int ntypes = 1;
  Lattice lattice;
};

// The step programs `wafermd model` prices side by side; `emulated`: the mesh backend runs its arithmetic, so
// its trajectories prove it (kept distances are the same fp32 values the force pass would recompute).
struct StepVariant {
  const char* name;
  bool newton, keep_distances, emulated;
};
constexpr StepVariant kVariants[] = {{"full_window", false, false, true},
                                     {"full_window_kept_distances", false, true, true},
                                     {"newton_half_window", true, false, false},
                                     {"newton_kept_distances", true, true, false}};
constexpr fabric::TableLayout kLayouts[] = {fabric::TableLayout::Spline7, fabric::TableLayout::Spline4,
                                            fabric::TableLayout::Hermite2};

std::string programs_name(const mesh::StepWork& w) {
  return std::string(w.newton ? "newton_half_window" : "full_window") +
         (w.keep_distances ? "_kept_distances" : "");
}

// The range's ends found jointly: from each parameter's own slower (faster) end, a coordinate search flips
// any parameter whose other end slows (speeds) the step further, until none does. A tie keeps the end
// already chosen, so the answer does not depend on which end a tie would favour alone.
// One end of the range: the hardware, each ranged parameter's value in it, and the chosen program's speed.
struct RangeEnd {
  fabric::HardwareSpec hw;
  nlohmann::json values = nlohmann::json::object();
  double speed = 0;
};

RangeEnd range_end(const mesh::StepWork& w, const fabric::HardwareSpec& hw, bool fast, RangeEnd end) {
  auto speed = [&](const fabric::HardwareSpec& h) { return mesh::account_step(w, h).steps_per_second; };
  end.speed = speed(end.hw);
  for (int pass = 0; pass < 4; ++pass) {
    bool changed = false;
    for (const fabric::ParameterRange& r : hw.ranges) {
      for (double v : {r.low, r.high}) {
        const fabric::HardwareSpec trial = fabric::with_parameter(end.hw, r.key, v);
        const double t = speed(trial);
        if (fast ? t > end.speed * (1 + 1e-12) : t < end.speed * (1 - 1e-12)) {
          end.hw = trial, end.speed = t, end.values[r.key] = v;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return end;
}

bool is_yaml(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

}  // namespace

// model_input's work, the ranks agreeing before each command.
nlohmann::json model_input_in_step(const ModelOptions& opt, const Lockstep& step);

nlohmann::json model_input(const ModelOptions& opt) {
  // The ranks keep in step through the input (lockstep.hpp): one rank's failure or other path ends all.
  Comm world;
  const Lockstep step(world);
  // Input files read on rank 0 for every rank (root_reads.hpp).
  const RootReads root_reads(world, step);
  try {
    return model_input_in_step(opt, step);
  } catch (...) {
    throw AgreedFailure(step.fail(std::current_exception(), exit_bad_input));
  }
}

nlohmann::json model_input_in_step(const ModelOptions& opt, const Lockstep& step) {
  io::RunSettings settings;
  std::vector<io::Command> yaml_commands;
  const bool yaml = is_yaml(opt.input);
  if (yaml) {
    io::YamlInput y = io::read_yaml_input(opt.input, opt.sets);
    settings = y.settings;
    yaml_commands = std::move(y.commands);
  } else {
    for (const auto& [k, v] : opt.sets) {
      if (!io::apply_setting(settings, k, v, SourcePos{"--set", 0}))
        fail_input(SourcePos{"--set", 0}, "key '" + k + "' does not apply to a LAMMPS input");
    }
  }
  // The model prices the mesh; the input's own backend choice does not matter here.
  settings.backend = "cluster";
  const std::string wafer = opt.wafer.empty() ? settings.mesh_wafer : opt.wafer;
  const fabric::HardwareSpec hw = fabric::load_hardware(wafer);

  std::optional<Snapshot> snap;
  io::Log quiet;
  Simulation sim(quiet, settings, true, nullptr);
  sim.set_run_hook([&](const State& s, const potentials::EamTables& t, const NeighborSettings& nb) {
    if (!snap) {
      const fabric::TableShape shape = mesh::table_shape(t);
      snap = Snapshot{s, t.cutmax, nb, shape, std::max(1, t.ntypes), sim.lattice};
    }
  });
  if (yaml) {
    for (const auto& c : yaml_commands) step.before(&c, c.pos), sim.execute(c);
    step.before(nullptr, SourcePos{opt.input, 0});
  } else {
    io::Variables vars;
    for (const auto& [k, v] : opt.vars) vars.define_from_command_line(k, v);
    sim.attach_variables(vars);
    io::LammpsScript script(opt.input, vars, SourcePos{"<command line>", 0});
    script.limit_jumps(10000);  // a dry run: a loop waiting for the dynamics would never end
    io::Command cmd;
    while (script.next(cmd)) step.before(&cmd, cmd.pos), sim.execute(cmd);
    step.before(nullptr, SourcePos{opt.input, 0});
    sim.vars = nullptr;
  }
  if (!snap) fail_input(SourcePos{opt.input, 0}, "the input has no 'run': nothing to model");

  State& s = snap->state;
  if (s.box.triclinic)
    fail_input(SourcePos{opt.input, 0},
               "the wafer model maps orthogonal boxes only; this box is triclinic (tilt factors xy xz yz)");
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  const double cutneigh = snap->cutmax + snap->nb.skin;
  for (int d = 0; d < 3; ++d)
    if (s.box.periodic(d)) {
      int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
      double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
      for (int i = 0; i < n; ++i) wrap_periodic(pos[d][i], img[d][i], s.box.lo[d], s.box.hi[d]);
    }
  mesh::check_single_image(s.box, cutneigh);
  int w = 0, h = 0;
  mesh::choose_grid(n, s.box, hw.grid_width, hw.grid_height, hw.pe_count, hw.name, w, h);
  const mesh::Mapping m = mesh::map_atoms(s.box, a.x.data(), a.y.data(), a.z.data(), a.id.data(), n, w, h);
  // Neighbour counts per atom (full lists: each pair counts at both atoms).
  std::vector<int> cand(n, 0), incut(n, 0);
  int b = 1;
  const double cutsq = snap->cutmax * snap->cutmax;
  mesh::for_each_pair(s.box, a.x.data(), a.y.data(), a.z.data(), n, cutneigh, [&](int i, int j) {
    ++cand[i], ++cand[j];
    double r2 = 0;
    const double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
    for (int d = 0; d < 3; ++d) {
      double dd = pos[d][i] - pos[d][j];
      if (s.box.periodic(d)) dd -= s.box.prd(d) * std::round(dd / s.box.prd(d));
      r2 += dd * dd;
    }
    if (r2 < cutsq) ++incut[i], ++incut[j];
    b = std::max(b, mesh::pe_distance(m, m.pe_of[i], m.pe_of[j]));
  });
  // Rebuild interval [E]: steps until the fastest atom has moved skin/2 (LAMMPS's trigger), at least the
  // input's every/delay.
  double vmax = 0;
  for (int i = 0; i < n; ++i)
    vmax = std::max(vmax, std::sqrt(a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]));
  double interval = vmax > 0 ? 0.5 * snap->nb.skin / (vmax * s.dt) : 1e9;
  interval = std::max(
      {1.0, std::floor(interval), static_cast<double>(snap->nb.every), static_cast<double>(snap->nb.delay)});
  if (!snap->nb.check) interval = std::max(1, std::max(snap->nb.every, snap->nb.delay));  // fixed interval
  if (snap->nb.once) interval = 1e9;

  // The lattice-site mapping (cell columns on PE patches), where the system is a crystal of the input's
  // lattice with one atom per site: the same pairs, the window its patches need. The one with the smaller b
  // is priced (ties: the lattice's, whose b does not grow as atoms vibrate).
  nlohmann::json mappings = {{"bisection", {{"grid", {w, h}}, {"b", b}}}};
  std::string mapping_name = "bisection";
  mesh::PatchMapping pm;
  std::string why;
  if (mesh::map_lattice_patches(s.box, snap->lattice, a.x.data(), a.y.data(), a.z.data(), n, hw.grid_width,
                                hw.grid_height, cutneigh, pm, &why)) {
    mappings["lattice_patches"] = {{"grid", {pm.map.width, pm.map.height}},
                                   {"b", pm.b},
                                   {"patch", {pm.patch_w, pm.patch_h}},
                                   {"transposed", pm.transposed}};
    if (pm.b <= b) {
      b = pm.b, w = pm.map.width, h = pm.map.height;
      mapping_name = "lattice_patches";
    }
  } else {
    mappings["lattice_patches"] = {{"unavailable", why}};
  }
  mesh::StepWork work;
  work.grid = fabric::Grid{w, h};
  work.wrap = m.wrap;
  work.b = b;
  const bool fp64 = settings.mesh_precision == "fp64";
  work.position_words = fp64 ? 6 : 3;
  work.fp_words = fp64 ? 2 : 1;
  work.candidates = n > 0 ? *std::max_element(cand.begin(), cand.end()) : 0;
  work.in_cut = n > 0 ? *std::max_element(incut.begin(), incut.end()) : 0;
  work.rebuild_interval = interval;
  work.checks_per_step = (snap->nb.check && !snap->nb.once) ? 1.0 / std::max(1, snap->nb.every) : 0.0;
  // `check yes` is decided per PE (no vote) where that prices lower than the vote, as the mesh backend
  // chooses; deterministic mode keeps LAMMPS's global decision.
  double vote_total = 0, local_total = 0;
  if (snap->nb.check && !snap->nb.once && !settings.deterministic) {
    vote_total = mesh::account_step(work, hw).total;
    work.local_trigger = true;
    local_total = mesh::account_step(work, hw).total;
    work.local_trigger = local_total <= vote_total;
  }
  work.tables = snap->tables;
  work.one_species = snap->ntypes == 1;
  // Every step variant in every table layout, side by side; the prediction is the fastest one that fits the
  // PE's memory among those the emulator runs.
  nlohmann::json programs = nlohmann::json::array();
  std::optional<mesh::StepWork> best_work;
  mesh::StepCycles c, newton_best;
  double best = 0, newton_speed = 0;
  for (const StepVariant& v : kVariants)
    for (fabric::TableLayout layout : kLayouts) {
      mesh::StepWork vw = work;
      vw.newton = v.newton;
      vw.keep_distances = v.keep_distances;
      vw.table_layout = layout;
      const mesh::StepCycles vc = mesh::account_step(vw, hw);
      programs.push_back({{"variant", v.name},
                          {"table_layout", fabric::table_layout_name(layout)},
                          {"emulated", v.emulated},
                          {"fits", vc.fits},
                          {"cycles_per_step", vc.total},
                          {"steps_per_second", vc.steps_per_second},
                          {"bytes_per_pe", vc.memory.total()},
                          {"reverse_sums", vc.reverse_sums}});
      // Newton's best is reported whether or not it fits (bytes_per_pe and fits say which).
      if (v.newton && vc.steps_per_second > newton_speed)
        newton_speed = vc.steps_per_second, newton_best = vc;
      if (vc.fits && v.emulated && vc.steps_per_second > best)
        best = vc.steps_per_second, c = vc, best_work = vw;
    }
  const bool feasible = best_work.has_value();
  if (!feasible) {  // nothing fits: the cycles shown are the emulator's step in LAMMPS's layout, marked
    best_work = work;
    c = mesh::account_step(work, hw);
  }
  // The range: every [E] parameter (and a reported spread) at the ends that slow, then speed, the chosen
  // program most, found jointly; each parameter's own two ends are listed too.
  nlohmann::json ranges = nlohmann::json::array();
  RangeEnd slow{hw}, fast{hw};
  for (const fabric::ParameterRange& r : hw.ranges) {
    const double at_low =
        mesh::account_step(*best_work, fabric::with_parameter(hw, r.key, r.low)).steps_per_second;
    const double at_high =
        mesh::account_step(*best_work, fabric::with_parameter(hw, r.key, r.high)).steps_per_second;
    slow.values[r.key] = at_low <= at_high ? r.low : r.high;
    fast.values[r.key] = at_high >= at_low ? r.high : r.low;
    slow.hw = fabric::with_parameter(slow.hw, r.key, slow.values[r.key].get<double>());
    fast.hw = fabric::with_parameter(fast.hw, r.key, fast.values[r.key].get<double>());
    ranges.push_back({{"parameter", r.key},
                      {"low", r.low},
                      {"high", r.high},
                      {"steps_per_second_at_low", at_low},
                      {"steps_per_second_at_high", at_high}});
  }
  slow = range_end(*best_work, hw, false, slow);
  fast = range_end(*best_work, hw, true, fast);
  const double low = slow.speed, high = fast.speed;
  const mesh::StepCycles& nc = newton_speed > 0 ? newton_best : c;
  nlohmann::json j;
  j["input"] = opt.input;
  j["wafer"] = hw.name;
  j["atoms"] = n;
  j["grid"] = {w, h};
  j["wrap"] = m.wrap;
  j["window_b"] = b;
  j["mapping"] = mapping_name;
  j["mappings"] = mappings;
  j["precision"] = fp64 ? "fp64" : "fp32";
  j["neighbours_max"] = work.candidates;
  j["in_cutoff_max"] = work.in_cut;
  j["rebuild_interval_steps_estimate"] = interval;
  j["cycles_per_step"] = mesh::cycles_json(c);
  j["clock_hz"] = hw.clock_hz;
  j["feasible"] = feasible;
  j["predicted_steps_per_second"] = feasible ? nlohmann::json(c.steps_per_second) : nlohmann::json();
  j["predicted_steps_per_second_low"] = feasible ? nlohmann::json(low) : nlohmann::json();
  j["predicted_steps_per_second_high"] = feasible ? nlohmann::json(high) : nlohmann::json();
  j["parameter_ranges"] = ranges;
  j["range_ends"] = {{"slow", slow.values}, {"fast", fast.values}};
  j["step_variant"] = feasible ? programs_name(*best_work) : "none fits";
  j["table_layout"] = fabric::table_layout_name(best_work->table_layout);
  j["sram_bytes_per_pe"] = hw.sram_bytes_per_pe;
  j["programs"] = programs;
  j["newton_half_window_steps_per_second"] = nc.steps_per_second;
  j["newton_half_window_cycles_per_step"] = mesh::cycles_json(nc);
  j["faster_variant"] = nc.steps_per_second > c.steps_per_second ? "newton_half_window" : "full_window";
  j["rebuild_trigger"] = work.local_trigger ? "local" : (work.checks_per_step > 0 ? "vote" : "interval");
  if (vote_total > 0) j["trigger_cycles_per_step"] = {{"vote", vote_total}, {"local", local_total}};
  j["energy_per_step_joules"] = c.energy_per_step_j;
  return j;
}

int run_model_command(const ModelOptions& opt, std::ostream& out) {
  const nlohmann::json j = model_input(opt);
  if (opt.json) {
    out << j.dump(2) << '\n';
    return 0;
  }
  const auto& c = j["cycles_per_step"];
  out << fmt::format(
      "Model of {} on {}: {} atoms on a {}x{} PE grid ({}, {} mapping), window radius b = {}\n",
      j["input"].get<std::string>(), j["wafer"].get<std::string>(), j["atoms"].get<int>(),
      j["grid"][0].get<int>(), j["grid"][1].get<int>(), j["wrap"].get<bool>() ? "folded torus" : "no wrap",
      j["mapping"].get<std::string>(), j["window_b"].get<int>());
  const auto& bis = j["mappings"]["bisection"];
  const auto& lat = j["mappings"]["lattice_patches"];
  out << fmt::format("Mappings: coordinate bisection b = {}; lattice patches {}\n", bis["b"].get<int>(),
                     lat.contains("b")
                         ? fmt::format("{}x{} PEs per cell column, b = {}", lat["patch"][0].get<int>(),
                                       lat["patch"][1].get<int>(), lat["b"].get<int>())
                         : "unavailable (" + lat["unavailable"].get<std::string>() + ")");
  out << fmt::format(
      "Busiest PE's cycles per step: positions {:.0f}, F' {:.0f}, reductions {:.0f}, compute {:.0f}, "
      "swaps {:.0f}; step {:.0f}\n",
      c["multicast_positions"].get<double>(), c["multicast_fp"].get<double>(), c["reductions"].get<double>(),
      c["compute"].get<double>(), c["swap"].get<double>(), c["total"].get<double>());
  // The step's timeline: the activities that hold its critical path, in step order, and what overlapping
  // saved against the additive account.
  std::string path;
  for (const auto& seg : c["critical_path"])
    path += fmt::format("{}{} {:.0f}", path.empty() ? "" : ", ", seg["activity"].get<std::string>(),
                        seg["cycles"].get<double>());
  out << fmt::format(
      "Critical path (cycles per step): {}; total {:.0f} against {:.0f} with nothing overlapped\n", path,
      c["total"].get<double>(), c["additive"].get<double>());
  const auto& mem = c["bytes_per_pe"];
  out << fmt::format(
      "PE memory of this program ({} tables): code {}, tables {}, buffers {}, lists {}, atom {}; {} of {} "
      "bytes{}\n",
      j["table_layout"].get<std::string>(), mem["code"].get<long long>(), mem["tables"].get<long long>(),
      mem["buffers"].get<long long>(), mem["lists"].get<long long>(), mem["atom"].get<long long>(),
      mem["total"].get<long long>(), j["sram_bytes_per_pe"].get<long long>(),
      c["fits"].get<bool>() ? "" : " (does not fit)");
  if (j["feasible"].get<bool>()) {
    out << fmt::format(
        "Predicted ({}, {} tables): {:.4g} steps/s at {:.4g} Hz ({:.4g} to {:.4g} over the parameters' "
        "ranges), {:.3g} J per step\n",
        j["step_variant"].get<std::string>(), j["table_layout"].get<std::string>(),
        j["predicted_steps_per_second"].get<double>(), j["clock_hz"].get<double>(),
        j["predicted_steps_per_second_low"].get<double>(), j["predicted_steps_per_second_high"].get<double>(),
        j["energy_per_step_joules"].get<double>());
  } else {
    out << "Predicted: none. No program the emulator runs fits the PE's memory in any table layout (the "
           "potential's tables are too large); the figures above are LAMMPS's layout, marked infeasible\n";
  }
  out << fmt::format(
      "Newton half-window step: {:.4g} steps/s ({:.0f} cycles, reverse sums {:.0f}{}); the emulator runs the "
      "full-window step\n",
      j["newton_half_window_steps_per_second"].get<double>(),
      j["newton_half_window_cycles_per_step"]["total"].get<double>(),
      j["newton_half_window_cycles_per_step"]["reverse_sums"].get<double>(),
      j["newton_half_window_cycles_per_step"]["fits"].get<bool>() ? "" : "; does not fit");
  out << "Programs (cycles per step, steps/s, bytes per PE):\n";
  for (const auto& p : j["programs"])
    out << fmt::format("  {:<28} {:<9} {:>7.0f} {:>11.4g} {:>7}{}{}\n", p["variant"].get<std::string>(),
                       p["table_layout"].get<std::string>(), p["cycles_per_step"].get<double>(),
                       p["steps_per_second"].get<double>(), p["bytes_per_pe"].get<long long>(),
                       p["fits"].get<bool>() ? "" : "  does not fit",
                       p["emulated"].get<bool>() ? "" : "  (not run by the emulator)");
  return 0;
}

}  // namespace wmd::md
