#include "md/programs/program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "base/error.hpp"
#include "base/printable_line.hpp"
#include "base/simd.hpp"
#include "io/lammps_script.hpp"
#include "io/output_files.hpp"
#include "io/text_file.hpp"
#include "io/yaml_input.hpp"
#include "md/core/comm.hpp"
#include "md/core/resources.hpp"
#include "md/programs/failure.hpp"
#include "md/programs/lockstep.hpp"
#include "md/programs/root_reads.hpp"
#include "md/run/script_replay.hpp"
#include "md/run/signals.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

bool is_yaml(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

// The input as settings plus a way to replay its commands into a simulation (twice: dry run, real run).
struct LoadedInput {
  io::RunSettings settings;
  std::vector<io::Command> yaml_commands;
  bool yaml = false;
};

LoadedInput load(const RunOptions& opt) {
  LoadedInput in;
  in.yaml = is_yaml(opt.input);
  if (in.yaml) {
    io::YamlInput y = io::read_yaml_input(opt.input, opt.sets);
    in.settings = y.settings;
    in.yaml_commands = std::move(y.commands);
  } else {
    for (const auto& [k, v] : opt.sets) {
      if (!io::apply_setting(in.settings, k, v, SourcePos{"--set", 0})) {
        std::string keys;
        for (const auto& s : io::setting_keys()) keys += (keys.empty() ? "" : ", ") + s;
        fail_input(SourcePos{"--set", 0},
                   "key '" + k + "' does not apply to a LAMMPS input (keys: " + keys + ")");
      }
    }
  }
  if (!opt.backend.empty()) io::apply_setting(in.settings, "backend", opt.backend, SourcePos{"--backend", 0});
  if (!opt.output_dir.empty()) in.settings.output_dir = opt.output_dir;
  if (in.settings.output_dir.empty()) {
    in.settings.output_dir = "out/" + input_output_name(opt.input);
  }
  return in;
}

// The input file's text, for trajectories and checkpoints.
// Bounded like the script reader, so a device or a huge file named as the input is refused before any
// parsing.
std::string input_text(const std::string& path) {
  return io::read_plain_file(path, "input", SourcePos{"<command line>", 0}, io::kMaxScriptBytes);
}

// Replays the input's commands into `sim`; returns how many it gave. The ranks agree before each command and
// at the end (Lockstep), so that none runs a command the others do not.
size_t replay(const LoadedInput& in, const RunOptions& opt, Simulation& sim, const Lockstep& step) {
  if (!opt.restart.empty()) sim.set_restart(opt.restart);
  sim.set_input(opt.input, input_text(opt.input));
  if (in.yaml) {
    for (const auto& c : in.yaml_commands) step.before(&c, c.pos), sim.execute(c);
    step.before(nullptr, SourcePos{opt.input, 0});
    return in.yaml_commands.size();
  }
  io::Variables vars;
  for (const auto& [k, v] : opt.vars) vars.define_from_command_line(k, v);
  sim.attach_variables(vars);
  io::LammpsScript script(opt.input, vars, SourcePos{"<command line>", 0});
  // The dry run's state does not evolve, so a loop that waits for the dynamics would never end: it stops
  // checking after this many jumps.
  if (sim.dry_run) script.limit_jumps(10000);
  // LAMMPS's warnings about the script itself (non-ASCII characters), printed once, by the real run.
  if (!sim.dry_run) script.set_warning_sink([&sim](const std::string& w) { sim.log.line(w); });
  // A loop of script commands alone (variable, print, jump) stops at a signal too.
  script.set_interrupt_check([] {
    if (const int sig = signals::pending())
      throw RunError("interrupted by " + std::string(signals::name(sig)) + " while reading the input");
  });
  const size_t count = replay_script(script, sim, [&](const io::Command& c) { step.before(&c, c.pos); });
  step.before(nullptr, SourcePos{opt.input, 0});
  sim.vars = nullptr;
  return count;
}

double drift_per_atom_per_ps(const RunTotals& t, double natoms) {
  const size_t n = t.sample_time.size();
  if (n < 2 || natoms <= 0) return 0.0;
  double mt = 0, me = 0;
  for (size_t i = 0; i < n; ++i) mt += t.sample_time[i], me += t.sample_etotal[i] / natoms;
  mt /= n, me /= n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dt = t.sample_time[i] - mt;
    sxx += dt * dt;
    sxy += dt * (t.sample_etotal[i] / natoms - me);
  }
  return sxx > 0 ? sxy / sxx : 0.0;
}

// How the run ended, for report.json: "completed" with exit code 0, or "failed" with the exit code and the
// error line the program printed.
struct Outcome {
  int exit_code = exit_ok;
  std::string error;
};

// The fields of report.json this rank knows alone: how the run ended, what ran, how far, where and how fast
// its kernels could go (the CPU and SIMD target).
nlohmann::json report_head(const RunOptions& opt, const io::RunSettings& settings, const Simulation& sim,
                           const Outcome& outcome) {
  const RunTotals& t = sim.totals;
  nlohmann::json j;
  j["version"] = WAFERMD_VERSION;
  j["status"] = outcome.exit_code == exit_ok ? "completed" : "failed";
  j["exit_code"] = outcome.exit_code;
  if (outcome.exit_code != exit_ok) j["error"] = outcome.error;
  j["input"] = opt.input;
  j["backend"] = settings.backend;
  j["ranks"] = sim.comm.size();
  j["steps"] = t.steps;
  j["simulated_time_ps"] = t.simulated_ps;
  j["wall_seconds"] = t.loop_seconds;
  j["cpu"] = simd::cpu_model();
  j["simd_target"] = simd::active_target();
  return j;
}

nlohmann::json write_report(const std::string& dir, const RunOptions& opt, const io::RunSettings& settings,
                            const Simulation& sim, double wall, const Outcome& outcome = {}) {
  const RunTotals& t = sim.totals;
  const Comm& comm = sim.comm;
  const int64_t natoms_all = sim.natoms();
  const double natoms = static_cast<double>(natoms_all);
  // Per-rank statistics (memory, waits, steal), not per-atom terms: sums in rank order.
  const double rss = comm.sum_in_rank_order(peak_rss_mb());
  const double wait_min = comm.min(t.comm_wait), wait_max = comm.max(t.comm_wait),
               wait_avg = comm.sum_in_rank_order(t.comm_wait) / comm.size();
  const CpuTicks& lc = t.loop_cpu;
  const double steal = !lc.known ? -1.0 : lc.total > 0 ? static_cast<double>(lc.steal) / lc.total : 0.0;
  // Ranks that may run on the same CPUs read the same share; the average of equal values must not round
  // past them.
  const double steal_min = comm.min(steal), steal_max = comm.max(steal),
               steal_avg = std::clamp(comm.sum_in_rank_order(steal) / comm.size(), steal_min, steal_max);
  if (!comm.root()) return {};
  nlohmann::json j = report_head(opt, settings, sim, outcome);
  j["grid"] = sim.decomp.grid_text();
  j["deterministic"] = settings.deterministic;
  j["atoms"] = natoms_all;
  j["total_wall_seconds"] = wall;
  j["steps_per_second"] = t.loop_seconds > 0 ? t.steps / t.loop_seconds : 0.0;
  j["atom_steps_per_second"] = t.loop_seconds > 0 ? natoms * t.steps / t.loop_seconds : 0.0;
  j["peak_rss_mb"] = rss;
  j["precision"] = settings.backend == "mesh" ? settings.mesh_precision : settings.cluster_precision;
  // The CPU and the SIMD target the kernels ran (figures compare only on the same CPU and target).
  j["simd_available"] = simd::available_targets();
  j["energy"] = {{"initial_ev", t.initial_energy},
                 {"final_ev", t.final_energy},
                 {"drift_ev_per_atom_per_ps", drift_per_atom_per_ps(t, natoms)}};
  if (!sim.cascade.report.is_null()) j["cascade"] = sim.cascade.report;
  const PhaseTimes& ph = t.phases;
  j["phases"] = {{"force", ph.pair},
                 {"neighbor", ph.neigh},
                 {"comm", ph.comm},
                 {"other", std::max(0.0, t.loop_seconds - ph.pair - ph.neigh - ph.comm)}};
  // Seconds each rank spent blocked on other ranks' messages and votes, nearly all of them inside `comm`
  // (min, average and max over ranks).
  j["comm_wait"] = {{"min", wait_min}, {"avg", wait_avg}, {"max", wait_max}};
  // The share of each rank's CPU time in the step loops that the hypervisor gave to other guests (absent
  // where /proc/stat could not be read on some rank).
  if (steal_min >= 0.0) j["host_steal"] = {{"min", steal_min}, {"avg", steal_avg}, {"max", steal_max}};
  // What the speed figures are for (a study's provenance): the potential, its reach, the step and the box.
  {
    const Box& b = sim.state.box;
    std::string boundary;
    for (int d = 0; d < 3; ++d) {
      if (d) boundary += ' ';
      boundary += static_cast<char>(b.face[d][0]);
      if (b.face[d][1] != b.face[d][0]) boundary += static_cast<char>(b.face[d][1]);
    }
    const double volume = (b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) * (b.hi[2] - b.lo[2]);
    j["setup"] = {{"units", "metal"},
                  {"pair_style", sim.pair_style},
                  {"potential_files", sim.potential_files},
                  {"cutoff_angstrom", sim.pair_cutoff()},
                  {"skin_angstrom", sim.neighbor.skin},
                  {"timestep_ps", sim.state.dt},
                  {"boundary", boundary},
                  {"box_angstrom", {b.hi[0] - b.lo[0], b.hi[1] - b.lo[1], b.hi[2] - b.lo[2]}},
                  {"number_density_per_cubic_angstrom", volume > 0 ? natoms / volume : 0.0}};
  }
  const NeighborStats& ns = sim.last_stats;
  j["neighbor"] = {{"builds", ns.builds}, {"dangerous_builds", ns.dangerous}, {"pairs", ns.pairs}};
  if (ns.balances > 0) j["neighbor"]["balances"] = ns.balances, j["neighbor"]["imbalance"] = ns.imbalance;
  sim.backend->add_report(j);
  if (!io::write_json_atomically(dir + "/report.json", j))
    throw RunError("cannot write " + dir + "/report.json");
  return j;
}

// report.json from the one rank that failed while the others wait for it inside a command (the job is then
// aborted, Lockstep::fail): what this rank knows, without a collective call.
void write_rank_report(const std::string& dir, const RunOptions& opt, const io::RunSettings& settings,
                       const Simulation& sim, const Failure& f) {
  nlohmann::json j = report_head(opt, settings, sim, Outcome{f.exit_code, printable_line(failure_line(f))});
  j["failed_rank"] = f.rank;
  io::write_json_atomically(dir + "/report.json", j);
}

}  // namespace

int run_program(const RunOptions& opt) {
  const auto start = std::chrono::steady_clock::now();
  // Every rank parses and checks the whole input, so input errors are found alike everywhere (exit 2 on all
  // ranks, printed once); rank 0 alone prints and writes files.
  Comm world;
  // Every rank, before anything else: the communicator the ranks agree on (lockstep.hpp).
  const Lockstep step(world);
  // Every rank: from here on, input files are read by rank 0 and broadcast (root_reads.hpp).
  const RootReads root_reads(world, step);
  // SIGINT/SIGTERM from the start: the dry run, the set-up and every command stop at the next command (and
  // `run` and `minimize` within a few steps), with one error line and exit 3.
  signals::install();
  io::Log log;
  if (!world.root()) log.mute();
  const std::filesystem::path start_dir = std::filesystem::current_path();
  // Until the dry run has passed, any failure is the input's (exit 2); from then on, the run's (exit 3).
  bool running = false;
  try {
    const LoadedInput in = load(opt);
    // The kernels' SIMD target, before anything runs: `--set simd=` (or the input's simd key), else the
    // environment's WAFERMD_SIMD, else the best this CPU has. One it cannot run is an input error (exit 2).
    if (!in.settings.simd.empty())
      simd::use(in.settings.simd, SourcePos{"--set", 0});
    else if (const char* env = std::getenv(simd::kEnvironment))
      simd::use(env, SourcePos{simd::kEnvironment, 0});
    else
      simd::use("auto", SourcePos{});
    {
      // Dry run: every command is checked (files read, types and ranges validated) before anything is
      // written.
      io::Log quiet;
      quiet.mute();
      Simulation dry(quiet, in.settings, true, nullptr);
      if (replay(in, opt, dry, step) == 0) fail_input(SourcePos{opt.input, 1}, "input has no commands");
    }
    // `shell cd` moves the dry run (and later the real run); the outputs are placed from where we started.
    std::filesystem::current_path(start_dir);
    running = true;
    const std::string dir = in.settings.output_dir;
    std::string problem;
    io::ThermoCsv csv;
    if (world.root()) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      // A previous run's results must not outlive this one's failure: they go before anything runs.
      std::filesystem::remove(dir + "/report.json", ec);
      std::filesystem::remove(dir + "/thermo.csv", ec);
      ec.clear();
      if (!std::filesystem::is_directory(dir, ec) || !log.open(dir + "/log.txt")) {
        problem = "cannot create or write the output directory" + (ec ? ": " + ec.message() : "");
      } else if (!csv.open(dir + "/thermo.csv.partial")) {
        problem = "cannot write thermo.csv.partial";
      }
    }
    world.broadcast(problem);
    if (!problem.empty()) fail_input(SourcePos{dir, 0}, problem);
    log.line(fmt::format("wafermd {} (LAMMPS-compatible EAM)", WAFERMD_VERSION));
    log.line("Input: " + opt.input + "   backend: " + in.settings.backend + "   output: " + dir + "/");
    {
      std::string built;
      for (const std::string& t : simd::compiled_targets()) built += (built.empty() ? "" : " ") + t;
      log.line("SIMD: " + simd::active_target() + " on " + simd::cpu_model() + " (this build: " + built +
               ")");
    }
    Simulation sim(log, in.settings, false, world.root() ? &csv : nullptr);
    try {
      replay(in, opt, sim, step);
      std::filesystem::current_path(start_dir);
      // A lost write to log.txt or thermo.csv fails the run before the report says it completed.
      log.flush();
      if (world.root()) csv.close();
    } catch (...) {
      std::error_code ec;
      std::filesystem::current_path(start_dir, ec);
      // One rank's failure (a lost atom, a non-finite force) ends every rank: agreed with the others, or, if
      // they wait for this rank inside a command, the job is aborted with the reason (Lockstep::fail).
      const Failure f = step.fail(std::current_exception(), exit_run_failed, [&](const Failure& mine) {
        write_rank_report(dir, opt, in.settings, sim, mine);
      });
      const std::string line = failure_line(f);
      // The report says the run failed and why (every rank is here); thermo.csv stays thermo.csv.partial.
      try {
        write_report(dir, opt, in.settings, sim, 0.0, Outcome{f.exit_code, printable_line(line)});
      } catch (...) {
      }
      throw AgreedFailure(f);
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const nlohmann::json report = write_report(dir, opt, in.settings, sim, wall);
    if (world.root()) {
      // thermo.csv appears only now: a run that fails or is killed leaves thermo.csv.partial.
      std::error_code ec;
      std::filesystem::rename(dir + "/thermo.csv.partial", dir + "/thermo.csv", ec);
      if (ec) throw RunError("cannot write " + dir + "/thermo.csv: " + ec.message());
    }
    const int secs = static_cast<int>(wall);
    log.line(fmt::format("Total wall time: {}:{:02d}:{:02d}", secs / 3600, (secs / 60) % 60, secs % 60));
    if (report.contains("fabric")) {
      // The mesh's closing line: what a wafer would do with this input, next to what the emulator did.
      const auto& f = report["fabric"];
      log.line(fmt::format(
          "Mesh speed: emulator {:.4g} steps/s on this machine; predicted {} wafer {:.4g} steps/s "
          "({:.0f} cycles/step, b = {})",
          report["steps_per_second"].get<double>(), f["wafer"].get<std::string>(),
          f["predicted_steps_per_second"].get<double>(), f["cycles_per_step"]["total"].get<double>(),
          f["window_b"].get<int>()));
      if (f.contains("timeline") && f["timeline"]["steps"].get<int64_t>() > 0) {
        // The run priced interval by interval (a cascade's phases differ from its average step).
        const auto& t = f["timeline"];
        log.line(fmt::format(
            "Mesh timeline: {} steps in {} intervals of up to {} steps, predicted {:.4g} s on "
            "the {} wafer ({} {}{})",
            t["steps"].get<int64_t>(), t["intervals"].size(), t["every"].get<int>(),
            t["predicted_seconds"].get<double>(), f["wafer"].get<std::string>(),
            t["program"]["variant"].get<std::string>(), t["program"]["table_layout"].get<std::string>(),
            t["program"]["fits"].get<bool>() ? "" : "; does not fit the PE's memory"));
      }
    }
    log.flush();
    // The last agreement: a failure on one rank at the end (report.json) ends every rank alike.
    step.before(nullptr, SourcePos{opt.input, 0});
    return exit_ok;
  } catch (...) {
    std::error_code ec;
    std::filesystem::current_path(start_dir, ec);
    // Agreed with every rank (or the job ends here): rank 0 prints the one error line.
    const Failure f = step.fail(std::current_exception(), running ? exit_run_failed : exit_bad_input);
    if (f.exit_code == exit_bad_input) {
      if (world.root()) print_failure(failure_line(f));
      return exit_bad_input;
    }
    log.file_only("error: " + printable_line(failure_line(f)));
    if (world.root()) print_failure(failure_line(f));
    return exit_run_failed;
  }
}

std::string input_output_name(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" ? p.stem().string() : p.filename().string();
}

}  // namespace wmd::md
