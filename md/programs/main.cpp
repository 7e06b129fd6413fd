// The `wafermd` command line: run, scaling, fabric simulate, --help, --version, --potentials-dir.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <iostream>
#include <vector>

#include "base/error.hpp"
#include "fabric/simulate_command.hpp"
#include "md/programs/failure.hpp"
#include "md/programs/model_command.hpp"
#include "md/programs/program.hpp"
#include "md/programs/scaling_command.hpp"
#include "potentials/potential_path.hpp"

namespace {

// Parses "KEY=VALUE" for --set.
std::pair<std::string, std::string> split_set(const std::string& kv) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw wmd::InputError("--set", 0, "expected KEY=VALUE, got '" + kv + "'");
  }
  return {kv.substr(0, eq), kv.substr(eq + 1)};
}

// This process's MPI rank (0 without MPI): input errors are printed by rank 0 alone.
int rank() {
  int initialized = 0, r = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// `--var NAME VALUE` takes exactly two words; CLI11 would take an option that follows as one of them
// (`--var x --output out` would define x as "--output"), so that is refused before parsing.
void check_var_words(const CLI::App& run_cmd, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "--var") continue;
    for (int k = i + 1; k <= i + 2; ++k) {
      const std::string word = k < argc ? argv[k] : "";
      const std::string name = word.substr(0, word.find('='));
      const bool option = word.rfind("-", 0) == 0 &&
                          (name == "-h" || name == "--help" || run_cmd.get_option_no_throw(name) != nullptr);
      if (k >= argc || option) {
        throw wmd::InputError("command line", 0,
                              "--var takes NAME VALUE, got " +
                                  (k >= argc ? std::string("too few words") : "the option '" + word + "'") +
                                  " after '--var" + (k == i + 2 ? std::string(" ") + argv[i + 1] : "") + "'");
      }
    }
    i += 2;
  }
}

int dispatch(int argc, char** argv) {
  CLI::App app{"wafermd: EAM molecular dynamics for a wafer-scale mesh and for clusters"};
  app.set_version_flag("--version", std::string("wafermd ") + WAFERMD_VERSION);
  app.require_subcommand(1);
  // Scripts that list LAMMPS's potentials (validation/) ask the program where it looks last.
  app.add_flag_callback(
      "--potentials-dir",
      [] {
        std::cout << wmd::potentials::default_potentials_dir() << "\n";
        throw CLI::Success();
      },
      "Print the directory searched last for potential files (after $LAMMPS_POTENTIALS) and exit");

  wmd::md::RunOptions run;
  std::vector<std::string> sets, vars;
  auto* run_cmd = app.add_subcommand("run", "Run an input (native YAML *.yaml or a LAMMPS input script)");
  run_cmd->add_option("INPUT", run.input, "Input file")->required();
  run_cmd->add_option("--backend", run.backend, "Backend: cluster (default) or mesh");
  run_cmd->add_option("--set", sets, "Override an input key: KEY=VALUE (YAML path)")->take_all()->expected(1);
  run_cmd->add_option("--var", vars, "Define a LAMMPS index variable: --var NAME VALUE")
      ->expected(2)
      ->take_all();
  run_cmd->add_option("--output", run.output_dir, "Output directory (default out/<input name>/)");
  run_cmd->add_option("--restart", run.restart,
                      "Continue from a checkpoint.h5 (run N then means N more steps)");

  wmd::md::ModelOptions model;
  std::vector<std::string> model_sets;
  auto* model_cmd =
      app.add_subcommand("model", "Predict the wafer's speed for an input without running dynamics");
  model_cmd->add_option("INPUT", model.input, "Input file")->required();
  model_cmd->add_option("--wafer,--preset", model.wafer,
                        "Hardware: wse2, wse3, cs2_sc24 or a YAML file (default: mesh.wafer)");
  model_cmd->add_flag("--json", model.json, "Print JSON");
  std::vector<std::string> model_vars;
  model_cmd->add_option("--var", model_vars, "Define a LAMMPS index variable: --var NAME VALUE")
      ->expected(2)
      ->take_all();
  model_cmd->add_option("--set", model_sets, "Override an input key: KEY=VALUE (YAML path)")
      ->take_all()
      ->expected(1);
  wmd::md::ScalingOptions scaling;
  auto* scaling_cmd =
      app.add_subcommand("scaling", "Strong-scaling study of the cluster backend (CSV and PNG)");
  scaling_cmd->add_option("INPUT", scaling.input, "Input file")->required();
  scaling_cmd->add_option(
      "--ranks", scaling.ranks,
      "Rank counts, comma-separated, or auto (default): 1 and the powers of two up to the logical CPUs");
  // A scaling point times a run: seconds of it are enough, so 10^7 steps (minutes per rank count even for a
  // handful of atoms) bounds it; a negative count would silently mean the input's own.
  scaling_cmd->add_option("--steps", scaling.steps, "Steps per run (overrides the input's run counts)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000000}));
  scaling_cmd->add_option("--output", scaling.output_dir,
                          "Output directory (default out/scaling/<input name>/)");
  scaling_cmd->add_option("--repeat", scaling.repeat,
                          "Runs per rank count, round after round; the CSV gives the median (default 1)");
  scaling_cmd->add_flag("--lammps", scaling.lammps,
                        "Also run LAMMPS (lmp) on the same LAMMPS script at each rank count, for comparison");
  scaling_cmd->add_option("--lmp", scaling.lmp, "LAMMPS executable for --lammps (default lmp; e.g. lmp_mpi)");
  scaling_cmd->add_option("--gpu", scaling.gpu,
                          "GPU-cluster projection preset: frontier (default) or h100 (docs/scaling.md)");
  scaling_cmd
      ->add_option("--var", scaling.vars,
                   "Define a LAMMPS index variable in every run (and lmp's): --var NAME VALUE")
      ->expected(2)
      ->take_all();
  scaling_cmd->add_option("--cpu", scaling.cpu,
                          "CPU-cluster projection preset of cpu_projection.yaml (default quartz)");
  scaling_cmd->add_option("--wafer,--preset", scaling.wafer,
                          "Wafer for the mesh prediction: wse2, wse3, cs2_sc24 or a YAML file (default: the "
                          "input's mesh.wafer)");

  wmd::fabric::SimulateOptions fab;
  std::string mesh;
  auto* fabric_cmd = app.add_subcommand("fabric", "Wafer fabric tools");
  fabric_cmd->require_subcommand(1);
  auto* sim_cmd =
      fabric_cmd->add_subcommand("simulate", "Run a fabric schedule on the cycle-level simulator");
  sim_cmd->add_option("--schedule", fab.schedule, "Schedule name")->required();
  sim_cmd->add_option("--b", fab.b, "Window radius b")->required();
  sim_cmd->add_option("--mesh", mesh, "Mesh size WxH")->required();
  sim_cmd->add_flag("--wrap", fab.wrap, "Periodic wrap-around (folded torus)");
  sim_cmd->add_option("--wafer", fab.wafer, "Hardware: wse2, wse3 or a YAML file");
  sim_cmd->add_flag("--json", fab.json, "Print JSON");
  sim_cmd->add_option("--neighbours", fab.neighbours,
                      "md_step: C or C,I neighbour entries per PE (I within the cutoff); default a synthetic "
                      "crystal-like neighbourhood");
  sim_cmd->add_flag("--rebuild", fab.rebuild,
                    "md_step: a step with a neighbour rebuild (swaps, window scan)");
  sim_cmd->add_flag("--serial", fab.serial,
                    "md_step: passes wait for each multicast's last word (no overlap)");

  try {
    if (argc > 1 && std::string(argv[1]) == "run") check_var_words(*run_cmd, argc, argv);
    if (argc > 1 && std::string(argv[1]) == "model") check_var_words(*model_cmd, argc, argv);
    if (argc > 1 && std::string(argv[1]) == "scaling") check_var_words(*scaling_cmd, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line, in the form every other error takes.
    std::string what = e.what();
    if (what.empty()) what = e.get_name();
    if (rank() == 0)
      wmd::md::print_failure("command line: " + what + " (wafermd --help lists the commands and options)");
    return wmd::exit_bad_input;
  }
  if (run_cmd->parsed()) {
    for (const auto& s : sets) run.sets.push_back(split_set(s));
    for (size_t i = 0; i + 1 < vars.size(); i += 2) run.vars.emplace_back(vars[i], vars[i + 1]);
    return wmd::md::run_program(run);
  }
  if (model_cmd->parsed()) {
    for (const auto& s : model_sets) model.sets.push_back(split_set(s));
    for (size_t i = 0; i + 1 < model_vars.size(); i += 2)
      model.vars.emplace_back(model_vars[i], model_vars[i + 1]);
    return wmd::md::run_model_command(model, std::cout);
  }
  if (scaling_cmd->parsed()) return wmd::md::run_scaling_command(scaling, std::cout);
  if (sim_cmd->parsed()) {
    wmd::fabric::parse_mesh_dims(mesh, fab.width, fab.height);
    return wmd::fabric::run_simulate_command(fab, std::cout);
  }
  return wmd::exit_bad_input;
}

}  // namespace

// Every failure ends here as one line on stderr and exit 2 (input) or 3 (run), whatever threw it: wafermd's
// own errors, an allocation failure, another library's exception, a bad Kokkos option. Input errors are
// found alike on every rank and printed by rank 0 alone.
int main(int argc, char** argv) {
  wmd::md::report_terminate();
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    wmd::md::print_failure("cannot start MPI (MPI_Init failed)");
    return wmd::exit_run_failed;
  }
  int status = wmd::exit_run_failed;
  bool started = false;  // Kokkos up: failures from here on are the command's, not Kokkos's options
  // Kokkos sees its own options (--kokkos-*) alone: given the whole command line it prints its ~40 lines of
  // options in front of ours for --help. `--kokkos-help` prints them.
  std::vector<char*> kokkos_args{argv[0]}, our_args{argv[0]};
  bool kokkos_help = false;
  for (int i = 1; i < argc; ++i) {
    const bool kokkos_option = std::string(argv[i]).rfind("--kokkos-", 0) == 0;
    kokkos_help = kokkos_help || std::string(argv[i]) == "--kokkos-help";
    (kokkos_option ? kokkos_args : our_args).push_back(argv[i]);
  }
  int kokkos_argc = static_cast<int>(kokkos_args.size());
  kokkos_args.push_back(nullptr);
  try {
    Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_args.data());
    started = true;
    // A --kokkos-* word Kokkos did not take is refused by our parser, as before.
    for (int i = kokkos_argc - 1; i >= 1; --i)
      if (std::string(kokkos_args[i]) != "--kokkos-help")
        our_args.insert(our_args.begin() + 1, kokkos_args[i]);
    int our_argc = static_cast<int>(our_args.size());
    our_args.push_back(nullptr);
    status = kokkos_help ? wmd::exit_ok : dispatch(our_argc, our_args.data());
  } catch (...) {
    // Before Kokkos started, the cause is one of its --kokkos-* options or environment variables.
    const wmd::md::Failure f = wmd::md::describe_failure(
        std::current_exception(), started ? wmd::exit_run_failed : wmd::exit_bad_input);
    // A failure the ranks agreed on (model: lockstep.hpp) may name the one rank it happened on.
    const std::string where = f.rank >= 0 ? "rank " + std::to_string(f.rank) + ": " : "";
    if (f.exit_code == wmd::exit_bad_input) {
      if (rank() == 0) wmd::md::print_failure(started ? where + f.message : "Kokkos: " + f.message);
    } else {
      wmd::md::print_failure(where + f.message);
    }
    status = f.exit_code;
  }
  MPI_Finalize();
  return status;
}
