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
#include "md/mesh/mapping.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

// What the model needs from the input: the system at its first run.
struct Snapshot {
  State state;
  double cutmax = 0;
  NeighborSettings nb;
};

bool is_yaml(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

}  // namespace

nlohmann::json model_input(const ModelOptions& opt) {
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
    if (!snap) snap = Snapshot{s, t.cutmax, nb};
  });
  if (yaml) {
    for (const auto& c : yaml_commands) sim.execute(c);
  } else {
    io::Variables vars;
    for (const auto& [k, v] : opt.vars) vars.define_from_command_line(k, v);
    sim.attach_variables(vars);
    io::LammpsScript script(opt.input, vars, SourcePos{"<command line>", 0});
    script.limit_jumps(10000);  // a dry run: a loop waiting for the dynamics would never end
    io::Command cmd;
    while (script.next(cmd)) sim.execute(cmd);
    sim.vars = nullptr;
  }
  if (!snap) fail_input(SourcePos{opt.input, 0}, "the input has no 'run': nothing to model");

  State& s = snap->state;
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
  const mesh::StepCycles c = mesh::account_step(work, hw);
  // The range: every [E] parameter (and the clock's reported spread) at the end of its range that slows the
  // step, then every one at the end that speeds it; each parameter's own two ends are listed too.
  nlohmann::json ranges = nlohmann::json::array();
  fabric::HardwareSpec slow = hw, fast = hw;
  for (const fabric::ParameterRange& r : hw.ranges) {
    const double at_low = mesh::account_step(work, fabric::with_parameter(hw, r.key, r.low)).steps_per_second;
    const double at_high =
        mesh::account_step(work, fabric::with_parameter(hw, r.key, r.high)).steps_per_second;
    slow = fabric::with_parameter(slow, r.key, at_low <= at_high ? r.low : r.high);
    fast = fabric::with_parameter(fast, r.key, at_low <= at_high ? r.high : r.low);
    ranges.push_back({{"parameter", r.key},
                      {"low", r.low},
                      {"high", r.high},
                      {"steps_per_second_at_low", at_low},
                      {"steps_per_second_at_high", at_high}});
  }
  const double low = mesh::account_step(work, slow).steps_per_second;
  const double high = mesh::account_step(work, fast).steps_per_second;
  // Newton's third law on the mesh, priced alongside: the emulator runs the full-window step (deterministic
  // mode must keep its bits), so the prediction stays the full-window one whichever is faster.
  mesh::StepWork newton_work = work;
  newton_work.newton = true;
  const mesh::StepCycles nc = mesh::account_step(newton_work, hw);
  nlohmann::json j;
  j["input"] = opt.input;
  j["wafer"] = hw.name;
  j["atoms"] = n;
  j["grid"] = {w, h};
  j["wrap"] = m.wrap;
  j["window_b"] = b;
  j["precision"] = fp64 ? "fp64" : "fp32";
  j["neighbours_max"] = work.candidates;
  j["in_cutoff_max"] = work.in_cut;
  j["rebuild_interval_steps_estimate"] = interval;
  j["cycles_per_step"] = mesh::cycles_json(c);
  j["clock_hz"] = hw.clock_hz;
  j["predicted_steps_per_second"] = c.steps_per_second;
  j["predicted_steps_per_second_low"] = low;
  j["predicted_steps_per_second_high"] = high;
  j["parameter_ranges"] = ranges;
  j["step_variant"] = "full_window";
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
  out << fmt::format("Model of {} on {}: {} atoms on a {}x{} PE grid ({}), window radius b = {}\n",
                     j["input"].get<std::string>(), j["wafer"].get<std::string>(), j["atoms"].get<int>(),
                     j["grid"][0].get<int>(), j["grid"][1].get<int>(),
                     j["wrap"].get<bool>() ? "folded torus" : "no wrap", j["window_b"].get<int>());
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
  out << fmt::format(
      "Predicted: {:.4g} steps/s ({:.4g} to {:.4g} over the parameters' ranges), {:.3g} J per step\n",
      j["predicted_steps_per_second"].get<double>(), j["predicted_steps_per_second_low"].get<double>(),
      j["predicted_steps_per_second_high"].get<double>(), j["energy_per_step_joules"].get<double>());
  out << fmt::format(
      "Newton half-window step: {:.4g} steps/s ({:.0f} cycles, reverse sums {:.0f}); faster variant: {}; the "
      "prediction is the full-window step the emulator runs\n",
      j["newton_half_window_steps_per_second"].get<double>(),
      j["newton_half_window_cycles_per_step"]["total"].get<double>(),
      j["newton_half_window_cycles_per_step"]["reverse_sums"].get<double>(),
      j["faster_variant"].get<std::string>());
  return 0;
}

}  // namespace wmd::md
