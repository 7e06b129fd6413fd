// A simulation driven by an ordered list of commands (LAMMPS subset or translated YAML): it owns the state,
// the potential, fixes, computes, thermo and dump settings, and runs the velocity-Verlet loop on a backend.
#pragma once
#include <array>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/command.hpp"
#include "io/dump_text.hpp"
#include "io/h5md_writer.hpp"
#include "io/lammps_script.hpp"
#include "io/output_files.hpp"
#include "io/run_settings.hpp"
#include "io/thermo_format.hpp"
#include "md/force/backend.hpp"
#include "md/cascade/cascade.hpp"
#include "md/core/decomposition.hpp"
#include "md/core/comm.hpp"
#include "md/styles/fix.hpp"
#include "md/core/lattice.hpp"
#include "md/minimize/minimizer.hpp"
#include "md/core/neighbor_settings.hpp"
#include "md/core/region.hpp"
#include "md/core/resources.hpp"
#include "md/core/state.hpp"
#include "md/run/thermo.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md {

/// Totals over all runs of one input, for report.json.
struct RunTotals {
  int64_t steps = 0;
  double loop_seconds = 0.0;
  double simulated_ps = 0.0;
  std::vector<double> sample_time, sample_etotal;  // thermo samples of total energy
  bool have_initial = false;
  double initial_energy = 0.0, final_energy = 0.0;
  PhaseTimes phases;  // backend phase seconds inside step loops (set-up excluded)
  // This rank's seconds inside step loops blocked waiting for other ranks (Comm::waited).
  double comm_wait = 0.0;
  // This rank's CPU ticks inside step loops, all and stolen by the hypervisor (/proc/stat); unknown once any
  // loop's could not be read.
  CpuTicks loop_cpu{0, 0, true};
};

class Simulation {
 public:
  /// In a dry run every command is checked and applied except those that run dynamics or write files.
  Simulation(io::Log& log, const io::RunSettings& settings, bool dry_run, io::ThermoCsv* csv);
  ~Simulation();

  /// Executes one command; bad input throws InputError, a failing run RunError.
  void execute(const io::Command& cmd);
  /// Value of a thermo keyword for equal-style variables; false if unknown.
  bool keyword_value(const std::string& name, double& value);
  /// Gives the variables store used for v_ references in thermo output.
  void set_variables(io::Variables* vars) { vars_ = vars; }

  /// This rank's part of the system: s.atoms holds only the atoms of this rank's sub-domain.
  const State& state() const { return s_; }
  /// The ranks sharing the system (deterministic when the run asks for it): use it for every global quantity.
  const Comm& comm() const { return comm_; }
  /// Which sub-domain (rank) owns which point of the box.
  const Decomposition& decomposition() const { return decomp_; }
  /// Number of atoms on all ranks (collective).
  int64_t natoms() const { return comm_.sum(static_cast<int64_t>(s_.atoms.size())); }
  const RunTotals& totals() const { return totals_; }
  const NeighborStats& last_neighbor_stats() const { return last_stats_; }
  std::string backend_name() const { return settings_.backend; }
  /// The fixes in definition order (checkpoints call save_state/restore_state on them).
  const std::vector<std::unique_ptr<Fix>>& fixes() const { return fixes_; }
  /// The `cascade` summary for report.json (null when the input ran no cascade).
  const nlohmann::json& cascade_report() const { return cascade_report_; }

  /// Restart from a checkpoint: it is loaded at the first `run` (which then means N more steps); before that,
  /// atom-creating commands create no atoms and velocity commands are skipped.
  void set_restart(const std::string& checkpoint_path) { restart_path_ = checkpoint_path; }
  /// The input's name and text, stored in trajectories (parameters/) and checkpoints.
  void set_input(const std::string& name, const std::string& text) { input_name_ = name, input_text_ = text; }
  /// Adds a scalar H5MD observable sampled at every trajectory frame (e.g. defect counts). The function
  /// runs on every rank (it may use global sums); rank 0's value is written.
  void add_observable(const std::string& name, const std::string& unit, std::function<double()> value);
  /// Fingerprint of the input's physics: every command so far except run, output and velocity commands.
  std::string physics_hash() const;
  /// Called at each `run` of a dry run with the system as it stands (`wafermd model` prices it).
  using RunHook = std::function<void(const State&, const potentials::EamTables&, const NeighborSettings&)>;
  void set_run_hook(RunHook hook) { run_hook_ = std::move(hook); }
  /// The execution backend (for backend-specific report entries).
  const Backend& backend() const { return *backend_; }

 private:
  struct Compute {
    std::string id, style;
    uint32_t group;
  };
  /// A scalar time series for H5MD observables/.
  struct Observable {
    std::string name, unit;
    std::function<double()> value;
  };
  /// An H5MD trajectory: output.trajectory (trajectory.h5 in the output directory) or a `dump … h5md`.
  struct H5md {
    std::string id, file;  // id empty: the output.trajectory one
    int every = 0;
    std::vector<std::string> fields;
    std::string author;
    std::unique_ptr<io::H5mdWriter> writer;  // rank 0 only
    bool opened = false;                     // every rank: the file is open on rank 0
    int64_t last_step = -1;                  // every rank: step of the last frame in the file
  };
  struct Dump {
    std::string id, file;
    uint32_t group;
    int every;
    std::vector<std::string> columns;
    bool sort_id = false;
    bool sort_desc = false;
    std::string line_format;
    std::vector<std::string> column_formats;
    std::unique_ptr<io::DumpTextWriter> writer;
    int64_t last_step = -1;
  };

  // commands_system.cpp
  void cmd_units(const io::Command& c);
  void cmd_atom_style(const io::Command& c);
  void cmd_boundary(const io::Command& c);
  void cmd_lattice(const io::Command& c);
  void cmd_region(const io::Command& c);
  void cmd_create_box(const io::Command& c);
  void cmd_create_atoms(const io::Command& c);
  void cmd_read_data(const io::Command& c);
  void cmd_write_data(const io::Command& c);
  void cmd_mass(const io::Command& c);
  void cmd_group(const io::Command& c);
  void cmd_velocity(const io::Command& c);
  void cmd_displace_atoms(const io::Command& c);
  void cmd_set(const io::Command& c);
  // commands_force.cpp
  void cmd_pair_style(const io::Command& c);
  void cmd_pair_coeff(const io::Command& c);
  void cmd_neighbor(const io::Command& c);
  void cmd_processors(const io::Command& c);
  void cmd_balance(const io::Command& c);
  void cmd_neigh_modify(const io::Command& c);
  // commands_output.cpp
  void cmd_fix(const io::Command& c);
  void cmd_unfix(const io::Command& c);
  void cmd_compute(const io::Command& c);
  void cmd_thermo(const io::Command& c);
  void cmd_thermo_style(const io::Command& c);
  void cmd_thermo_modify(const io::Command& c);
  void cmd_dump(const io::Command& c);
  void cmd_dump_modify(const io::Command& c);
  void dump_h5md(io::ArgCursor& a, const std::string& id);
  void cmd_undump(const io::Command& c);
  // cascade_commands.cpp: wafermd extensions (ZBL splice, cascade set-up, Wigner–Seitz defects)
  void cmd_zbl_splice(const io::Command& c);
  void cmd_write_potential(const io::Command& c);
  void cmd_cascade(const io::Command& c);
  void cmd_defects(const io::Command& c);
  void apply_zbl(potentials::EamTables& t) const;
  void cascade_end_of_step(bool last);
  bool cascade_thermo(const std::string& key, double& value) const;
  void finish_cascade_report();
  // run_loop.cpp
  void cmd_run(const io::Command& c);
  void run_steps(int64_t nsteps);
  /// Hands the backend the dynamic load balancing of the current fixes (fix balance), or none.
  void apply_load_balance();
  FixContext fix_context();
  void check_finite() const;
  void thermo_output(bool header);
  void write_dumps(bool force_all);
  bool eatom_needed(int64_t step) const;
  /// True when something reads the global energy or virial after this step's forces (thermo, progress,
  /// dumps, trajectories, the run's last step, a fix that may read them).
  bool tally_needed(int64_t step, int64_t end, bool progress) const;
  // trajectory_output.cpp
  void open_trajectories();
  void write_trajectories(bool force_all);
  io::H5mdFrame gather_frame(const H5md& h);
  // checkpoint_state.cpp
  /// Writes checkpoint.h5 in the output directory (every rank takes part; rank 0 writes).
  void write_checkpoint();
  /// Loads the restart checkpoint (every rank; rank 0 reads and broadcasts); mismatches are InputErrors.
  void load_checkpoint(const SourcePos& at);
  /// The restart checkpoint, read (rank 0) and broadcast once.
  const io::CheckpointData& restart_data(const SourcePos& at);
  /// Whether this `run` comes before the one the restart checkpoint was written in (and is skipped).
  bool run_precedes_checkpoint(const SourcePos& at);
  /// Keeps this rank's atoms from checkpoint arrays laid out in rank order (today: one rank keeps all).
  void keep_my_restored_atoms(const io::CheckpointData& d, int rank);
  /// Named arrays of one fix for checkpoints (the hook the Fix class family overrides; nve has none).
  NamedArrays fix_state(const Fix& f) const;
  /// Gives a fix back the arrays fix_state saved.
  void restore_fix_state(Fix& f, const NamedArrays& arrays);
  /// Adds a command to the physics fingerprint unless it is a run, output or velocity command.
  void record_physics(const io::Command& c);
  bool restart_pending() const { return !restart_path_.empty() && !restart_loaded_; }
  // minimize/commands_minimize.cpp
  void cmd_min_style(const io::Command& c);
  void cmd_min_modify(const io::Command& c);
  void cmd_minimize(const io::Command& c);
  void cmd_fix_box_relax(const io::Command& c);
  // dump_output.cpp
  void write_dump_frame(Dump& d);
  double per_atom_compute(const Compute& cp, size_t i) const;

  /// Chooses the MPI sub-domain grid once the box exists (cluster.grid, or the least sub-domain surface).
  void set_decomposition(const io::Command& c);
  void require_box(const io::Command& c) const;
  void require_no_box(const io::Command& c) const;
  uint32_t group_of(const io::ArgCursor& a, const std::string& name) const;
  const potentials::EamTables& tables();
  std::vector<std::string> thermo_keywords() const;

  io::Log& log_;
  io::RunSettings settings_;
  Comm comm_;
  Decomposition decomp_;
  std::array<int, 3> processors_ = {0, 0, 0};  // `processors` (0: chosen from the box shape)
  bool dry_run_;
  io::ThermoCsv* csv_;
  io::Variables* vars_ = nullptr;

  State s_;
  Lattice lattice_;
  std::map<std::string, Region> regions_;
  std::string pair_style_;
  std::unique_ptr<potentials::EamBuilder> eam_;
  std::optional<potentials::EamTables> tables_;
  NeighborSettings neighbor_;
  std::vector<std::unique_ptr<Fix>> fixes_;
  std::vector<Compute> computes_;
  std::vector<Dump> dumps_;
  int thermo_every_ = 0;
  bool thermo_custom_ = false;
  std::vector<std::string> thermo_custom_keys_;
  bool thermo_norm_ = false;
  io::ThermoFormat thermo_format_;
  std::unique_ptr<Backend> backend_;
  bool forces_current_ = false;
  std::chrono::steady_clock::time_point run_clock_;
  int64_t run_start_step_ = 0;
  int64_t run_end_step_ = 0;
  RunTotals totals_;
  struct ZblSettings {
    std::vector<std::string> elements;  // per type (index 1..ntypes)
    std::vector<int> z;
    double r_f = 0.0, b_f = 0.0;
    struct Pair {
      int i, j;
      double r_f, b_f;
    };
    std::vector<Pair> pairs;  // per-pair overrides of r_f, b_f
  };
  std::optional<ZblSettings> zbl_;
  std::unique_ptr<DefectTracker> defects_;
  nlohmann::json cascade_report_;
  std::string cascade_element_;
  double cascade_stop_time_ = -1.0;  // a cascade run ends at this simulated time (ps) when > 0
  NeighborStats last_stats_;
  // trajectories, checkpoints, restarts (h5md branch)
  std::vector<H5md> h5md_;
  std::vector<Observable> observables_;
  std::string restart_path_;
  bool restart_loaded_ = false;
  int64_t restart_step_ = -1;  // step of the loaded checkpoint: trajectory frames after it are dropped
  std::map<std::string, int64_t> restart_frames_;  // trajectory frame counts the checkpoint recorded
  // The forces and timestep the interrupted run carried into its next step, by atom id: a restart puts them
  // back after the run's set-up, which recomputes forces (a Langevin thermostat's set-up would add friction
  // from full-step velocities where the interrupted run used half-step ones) and the timestep (fix dt/reset).
  std::unordered_map<int64_t, std::array<double, 3>> restart_forces_;
  double restart_dt_ = 0.0;
  int64_t runs_started_ = 0;  // `run` commands begun so far; a checkpoint records the one it was written in
  std::unique_ptr<io::CheckpointData> restart_data_;  // the checkpoint, read at the first `run` of a restart
  std::string physics_text_;                          // commands that enter physics_hash()
  std::string input_name_, input_text_;
  int64_t last_checkpoint_step_ = -1;
  MinSettings min_;     // min_style / min_modify
  BoxRelax box_relax_;  // fix box/relax (one at a time, as LAMMPS allows)
  std::string box_relax_id_;
  RunHook run_hook_;
};

}  // namespace wmd::md
