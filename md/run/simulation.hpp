// A simulation driven by an ordered list of commands (LAMMPS subset or translated YAML). It owns the system,
// the potential, fixes, computes, thermo and dump settings and the backend, and runs the velocity-Verlet
// loop. Commands (md/commands/) are registered by name and act on its public parts, as LAMMPS commands act on
// lmp->atom, domain, force, modify and output.
#pragma once
#include <array>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
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
#include "md/cascade/cascade.hpp"
#include "md/core/comm.hpp"
#include "md/core/comparison.hpp"
#include "md/core/decomposition.hpp"
#include "md/core/lammps_order.hpp"
#include "md/core/lattice.hpp"
#include "md/core/neighbor_settings.hpp"
#include "md/core/random_mars.hpp"
#include "md/core/region.hpp"
#include "md/core/resources.hpp"
#include "md/core/state.hpp"
#include "md/force/backend.hpp"
#include "md/minimize/minimizer.hpp"
#include "md/run/thermo.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/fix.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md {

struct Reference;

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

/// `thermo`, `thermo_style` and `thermo_modify` settings.
struct ThermoSettings {
  int every = 0;
  // `thermo v_name` (LAMMPS's var_thermo): an equal-style variable, evaluated after each row, gives the step
  // of the next one; `every` is then 0. `next` is that step while a run lasts (LAMMPS's next_thermo).
  std::string every_var;
  SourcePos every_pos;
  int64_t next = -1;
  bool custom = false;
  bool multi = false;             // thermo_style multi (LAMMPS's multi-line blocks)
  std::vector<std::string> keys;  // thermo_style custom keywords
  bool norm = false;
  io::ThermoFormat format;
  std::string temp_id;  // `thermo_modify temp ID`: thermo's temperature compute (empty: all atoms, dof 3N−3)
  std::string lost = "error";  // `thermo_modify lost error|warn|ignore` (LAMMPS's lostflag)
  bool lost_warned = false;    // warn: LAMMPS's lostbefore, the warning is printed once
  SourcePos pos;               // the thermo_style command (its v_ columns are checked at each run's set-up)
};

/// What LAMMPS's thermo output gives a formula that reads a thermo keyword between runs
/// (Thermo::evaluate_keyword of LAMMPS 29 Sep 2021): the values its computes (thermo_temp, thermo_press,
/// thermo_pe) hold from the last thermo line — stale after `velocity` or `displace_atoms`, as in LAMMPS —
/// provided the style uses them, a run or minimisation set thermo up since the last `thermo_style`
/// ("Thermo keyword in variable requires thermo to use/init …"), and that line was at the present step
/// (`reset_timestep` makes them "not current").
struct ThermoSnapshot {
  bool initialised = false;  // Thermo::init ran since the last thermo_style (or clear)
  bool temp = false, press = false, pvector = false, pe = false;  // the computes the style uses
  int64_t step = -1;  // the step thermo last computed them (−1: never, or reset_timestep since)
  std::map<std::string, double> values;  // their keyword values then (empty in the dry run: set-up values)
};

/// Settings that change nothing wafermd computes but that formulas can ask about (is_active()).
struct ScriptFlags {
  std::set<std::string> packages;  // `package gpu|intel|kokkos|omp` given
  bool newton_pair = true, newton_bond = true;
  std::string comm_style = "brick";
  double comm_cutoff = 0.0;  // `comm_modify cutoff` (LAMMPS's cutghostuser, Å); 0: none given
  bool atom_map = false;     // `atom_modify map …` given (LAMMPS's atomfile variables need an atom map)
};

/// `dump_modify ID thresh attribute op value|LAST` (dump custom and cfg, as LAMMPS): only the atoms whose
/// attribute passes every threshold are written.
struct DumpThreshold {
  std::string attribute;  // a dump custom column, element (the type), or a per-atom c_/f_/v_ reference
  Comparison op = Comparison::lt;
  double value = 0.0;
  bool last = false;  // LAST: against the atom's value at the dump's previous frame (LAMMPS's FixStore)
  bool first = true;  // LAST before its first frame: the values are compared with themselves
  std::unordered_map<int64_t, double> previous;  // LAST, rank 0: the previous frame's value per atom id
};

class TextDumpStyle;

/// A text dump (`dump ID group STYLE N file …`, STYLE one of the registered text styles, md/run/dumps/, or
/// its /gz variant) and its dump_modify settings.
struct Dump {
  std::string id, file;
  std::string style;                    // the registered name (custom, atom, xyz, cfg, local, …)
  const TextDumpStyle* kind = nullptr;  // its registered behaviour (md/run/dump_style.hpp)
  bool gz = false;                      // the /gz style: the file is gzip-compressed
  bool multifile = false;  // a '*' in the file name: one file per frame, '*' replaced by the step
  int pad = 0;             // dump_modify pad: the step zero-padded to this many digits in the name
  bool first = false;      // dump_modify first yes: a frame at each run's first step whatever `every`
  bool scale = true, image = false;   // dump atom: scaled coordinates, image flags (dump_modify scale, image)
  std::vector<std::string> elements;  // dump_modify element: names per type (index 1..ntypes), for xyz
  uint32_t group = 1;
  int every = 1;
  // dump_modify every v_name (LAMMPS's var_dump): an equal-style variable gives the step of the next frame,
  // evaluated at each run's set-up and after each frame; `every` is then 0 and `next` that step.
  std::string every_var;
  SourcePos every_pos;
  int64_t next = -1;
  int64_t delay = 0;  // dump_modify delay: no frame before this step
  std::vector<std::string> columns;
  bool sort_id = false;
  bool sort_desc = false;
  std::string line_format;
  std::vector<std::string> column_formats;
  std::string label = "ENTRIES";               // dump local: dump_modify label
  std::vector<DumpThreshold> thresholds;       // dump_modify thresh, all of which an atom must pass
  std::unique_ptr<io::DumpTextWriter> writer;  // rank 0 only
  int64_t last_step = -1;
};

/// An H5MD trajectory: output.trajectory (trajectory.h5 in the output directory) or a `dump … h5md`.
struct H5mdDump {
  std::string id, file;  // id empty: the output.trajectory one
  int every = 0;
  std::vector<std::string> fields;
  std::string author;
  std::unique_ptr<io::H5mdWriter> writer;  // rank 0 only
  bool opened = false;                     // every rank: the file is open on rank 0
  int64_t last_step = -1;                  // every rank: step of the last frame in the file
};

/// `restart N file` and `restart N file1 file2`: wafermd restart files (the checkpoint format) every N steps.
/// As in LAMMPS the one-file and the two-file settings are independent (`restart 0` ends both): a '*' in the
/// one file's name is replaced by the step; the two files alternate.
struct RestartOutput {
  int64_t every_single = 0, every_double = 0;
  std::string single;
  std::string pair[2];
  int next = 0;  // the file of the pair written next
  // `restart v_name …` (LAMMPS's var_restart_single/double): an equal-style variable gives the step of the
  // next file, evaluated at each run's set-up and after each file; the interval is then 0.
  std::string var_single, var_double;
  int64_t next_single = -1, next_double = -1;
  SourcePos pos_single, pos_double;
};

/// The `zbl_splice` settings: ZBL spliced into the EAM tables at short range (docs/cascades.md).
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

/// A running cascade's state (`cascade`, `defects`).
struct CascadeState {
  std::unique_ptr<DefectTracker> defects;
  nlohmann::json report;    // report.json's `cascade` (null when the input ran none)
  std::string element;      // the PKA's element, for NRT/arc-dpa
  double stop_time = -1.0;  // a cascade run ends at this simulated time (ps) when > 0
};

/// States of fixes or computes a read_restart file carried, by ID: (style, this rank's arrays).
using RestartStates = std::map<std::string, std::pair<std::string, NamedArrays>>;

class Simulation : public StyleLookup {
 public:
  /// In a dry run every command is checked and applied except those that run dynamics or write files.
  Simulation(io::Log& log, const io::RunSettings& settings, bool dry_run, io::ThermoCsv* csv);
  /// A file the script writes and may read back later (write_data, then read_data after `clear`): the dry
  /// run writes it into its scratch directory, as write_restart does, and reads it from there.
  std::string dry_written(const std::string& file) { return dry_run ? dry_restart_path(file) : file; }
  std::string dry_readable(const std::string& file);
  ~Simulation();

  /// Executes one command through the command registry; bad input throws InputError, a failing run RunError.
  void execute(const io::Command& cmd);
  /// Value of a thermo keyword for equal-style variables; false if unknown.
  bool keyword_value(const std::string& name, double& value, const SourcePos* at = nullptr);
  /// An atom value x[N], vx[N], fx[N], mass[N], type[N] (collective); false for any other name.
  bool atom_value(const std::string& name, double& value);
  /// v_name[N]: atom N's value of an atom-style or atomfile variable (collective).
  bool atom_variable_value(const std::string& name, const SourcePos& at, double& value);
  /// Makes `v` the script's variables: their formulas read thermo keywords, c_/f_ references and group
  /// functions from this simulation (detach with vars = nullptr).
  void attach_variables(io::Variables& v);
  /// Value of a group function (count(ID), xcm(ID,dim), ...; LAMMPS's Variable::group_function) from its word
  /// arguments; bad words are InputErrors at `at` (collective).
  bool group_function(const std::string& f, const std::vector<std::string>& args, const SourcePos& at,
                      double& value);
  /// Value of any function with word arguments in an equal-style formula: group functions and LAMMPS's
  /// special functions (md/run/formula_functions.cpp; collective).
  bool formula_function(const std::string& f, const std::vector<std::string>& args, const SourcePos& at,
                        double& value);
  /// sum(), min(), max(), ave(), trap() or slope() of a global vector or array column (collective).
  double vector_function(const std::string& f, const std::string& arg, const SourcePos& at);
  /// LAMMPS's Info::is_defined, is_active and is_available, answered for wafermd.
  bool is_defined(const std::string& category, const std::string& name, const SourcePos& at);
  bool is_active(const std::string& category, const std::string& name, const SourcePos& at);
  bool is_available(const std::string& category, const std::string& name, const SourcePos& at);
  /// Where the run stands, for the step-dependent math functions.
  io::RunClock formula_clock() const;
  /// LAMMPS's Thermo::init at a run's or minimisation's set-up: the thermo computes the style uses become
  /// thermo's (in the dry run, or with `assumed` for a run a restart skips, they count as computed now).
  void thermo_setup(bool assumed = false);
  /// Keeps what the thermo line just printed for formulas between runs.
  void record_thermo_snapshot(const ThermoContext& ctx);
  /// `reset_timestep`: no compute (and no thermo value) is current any more, as LAMMPS's
  /// Update::reset_timestep.
  void timestep_reset();
  /// Checks the v_ columns of thermo_style custom (LAMMPS's Thermo::init: the variables must exist and be
  /// equal-style), failing at the thermo_style command.
  void check_thermo_variables() const;
  /// Number of atoms on all ranks (collective).
  int64_t natoms() const { return comm.sum(static_cast<int64_t>(state.atoms.size())); }

  /// Restart from a checkpoint: it is loaded at the first `run` (which then means N more steps); before that,
  /// atom-creating commands create no atoms and velocity commands are skipped.
  void set_restart(const std::string& checkpoint_path) { restart_path_ = checkpoint_path; }
  bool restart_pending() const { return !restart_path_.empty() && !restart_loaded_; }
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

  // ---- Used by commands --------------------------------------------------------------------------------
  void require_box(const io::Command& c) const;
  void require_no_box(const io::Command& c) const;
  /// The bit of group `name`, or a failure at the cursor's command.
  uint32_t group_of(const io::ArgCursor& a, const std::string& name) const;
  /// Chooses the MPI sub-domain grid once the box exists (cluster.grid, or the least sub-domain surface).
  void set_decomposition(const io::Command& c);
  /// The EAM tables of the current pair_style/pair_coeff (with the ZBL splice, and the zbl pair term of
  /// `pair_style zbl` or `hybrid/overlay … zbl`), built once.
  const potentials::EamTables& tables();
  /// `clear`: a new, empty system with every setting at its default, as LAMMPS's clear; the script's
  /// variables, the working directory and the log go on, and so do thermo.csv and report.json's run record.
  void clear_system(const io::Command& c);
  /// pair_style, pair_coeff or zbl_splice changed the potential: tables and forces are rebuilt when needed.
  void potential_changed() { tables_.reset(), forces_current = false; }
  /// True when pair_style and pair_coeff cover every atom type.
  bool potential_complete() const { return eam && eam->complete(); }
  /// `run N` after its checks: N velocity-Verlet steps with thermo, outputs and LAMMPS's summary.
  void run_steps(int64_t nsteps);
  /// LAMMPS's atom sort at a run or minimize set-up (and at re-neighbouring steps past atom_sort.next_step).
  void sort_atoms_as_lammps();
  /// Runs the dry-run checks of a run (backend limits, `wafermd model`'s hook).
  void validate_run();
  /// Whether this `run` comes before the one a restart checkpoint was written in (and is skipped); loads the
  /// checkpoint at the run it was written in.
  bool skip_or_load_restart(const SourcePos& at);
  /// Thermo line (with the header when asked) from the current state.
  void thermo_output(bool header);
  /// Fails the run (RunError) when a temperature, energy or pressure column of the line is not finite.
  void check_thermo_finite(const std::vector<std::string>& keys, const std::vector<double>& values) const;
  /// Dump frames due at this step: at a run's or minimisation's set-up (LAMMPS's Output::setup, which also
  /// sets each dump's next step) or after a step (Output::write).
  void write_dumps(bool setup);
  /// Whether dump `d` writes a frame after this step (its interval, or its variable's step).
  static bool dump_due(const Dump& d, int64_t step) {
    return d.every_var.empty() ? step % d.every == 0 : step == d.next;
  }
  /// Whether thermo prints a row after this step by its interval or variable (the run's last step aside).
  bool thermo_due(int64_t step) const {
    return thermo.every_var.empty() ? thermo.every > 0 && step % thermo.every == 0 : step == thermo.next;
  }
  /// The step an output's equal-style variable gives (thermo v_name, dump_modify every v_name): LAMMPS
  /// truncates it to an integer and stops when it is not after the present step (`lammps_error`).
  /// A minimisation's LAMMPS beginstep (its first step), which elaplong counts from.
  void set_begin_step(int64_t step) { ramp_begin_ = step; }
  int64_t thermo_next_from_variable() {
    return output_step_from(thermo.every_var, thermo.every_pos, "thermo v_" + thermo.every_var,
                            "Thermo every variable returned a bad timestep");
  }
  int64_t output_step_from(const std::string& var, const SourcePos& at, const std::string& who,
                           const std::string& lammps_error);
  /// One frame of dump `d` now (write_dump).
  void write_dump_now(Dump& d) { write_dump_frame(d); }
  /// The cascade's thermo keywords (vacancies, interstitials, clusters); false for any other keyword.
  bool cascade_thermo(const std::string& key, double& value) const;
  /// `write_restart`: the state as a wafermd restart file (the checkpoint format; every rank takes part, rank
  /// 0 writes).
  void write_restart_file(const std::string& path);
  /// `read_restart`: box, atoms, velocities, masses, groups, step and timestep from a wafermd restart file.
  void read_restart_file(const std::string& path, const SourcePos& at);
  /// The restart files due at this step (`restart N` or `restart v_name`).
  void write_restarts_due();
  /// At a run's set-up: the next steps of `restart v_name` (LAMMPS's Output::setup writes no file then).
  void schedule_restarts();
  /// A compute by ID, or null.
  Compute* find_compute(const std::string& id) const;
  /// A fix by ID, or null.
  Fix* find_fix(const std::string& id) const;
  // StyleLookup: what styles reach by name (LAMMPS's modify->compute[], fix[], input->variable).
  Compute* compute(const std::string& id) const override { return find_compute(id); }
  Fix* fix(const std::string& id) const override { return find_fix(id); }
  bool has_variable(const std::string& name) const override;
  bool has_atom_variable(const std::string& name) const override;
  void atom_variable(const std::string& name, const SourcePos& at, std::vector<double>& out) override;
  double variable(const std::string& name) override;
  void clearstep_computes() override;
  bool in_run() const override { return running; }
  double fix_energy() const override;
  double ghost_cutoff() const override;
  /// The potential's cut-off (Å; 0 before its tables are built).
  double pair_cutoff() const { return tables_ ? tables_->cutmax : 0.0; }
  double neighbor_skin() const override { return neighbor.skin; }
  std::string substitute(const std::string& text, const SourcePos& at) override;
  /// The thermo keywords of the current style (LAMMPS's `one` unless thermo_style custom).
  std::vector<std::string> thermo_keywords() const;
  void print_line(const std::string& text) override { log.line(text); }
  /// What a compute invoked now sees (the last forces when they belong to the current positions).
  ComputeContext compute_context();
  /// Thermo's context at this step: with `thermo_modify temp ID`, that compute's temperature, dof and
  /// kinetic tensor (invoked once per output event).
  ThermoContext thermo_context(const ForceResult* force, bool normalise);
  /// What a fix or compute factory may need besides its arguments.
  FixBuildContext fix_build_context() const;
  ComputeBuildContext compute_build_context() const;

  // ---- The system and its settings (LAMMPS's atom, domain, force, neighbor, modify, output) ---------------
  io::Log& log;
  io::RunSettings settings;
  const bool dry_run;
  Comm comm;
  Decomposition decomp;
  std::array<int, 3> processors = {0, 0, 0};  // `processors` (0: chosen from the box shape)
  io::Variables* vars = nullptr;              // the script's variables (v_ references in thermo)

  State state;
  Lattice lattice;
  std::map<std::string, Region> regions;
  std::string pair_style;
  std::vector<std::string> pair_substyles;  // hybrid/overlay's sub-style names as written (LAMMPS's keywords)
  std::vector<std::string> potential_files;  // the pair_coeff files of the current pair_style, as written
  std::unique_ptr<potentials::EamBuilder> eam;
  std::unique_ptr<potentials::ZblBuilder> zbl_pair;  // pair_style zbl, alone or overlaid on the EAM style
  SourcePos pair_style_pos;                          // the pair_style command, for errors found at a run
  std::optional<ZblSettings> zbl;
  NeighborSettings neighbor;
  std::vector<std::unique_ptr<Fix>> fixes;
  // mutable: LAMMPS's thermo_temp, thermo_press and thermo_pe are made when first looked up
  mutable std::vector<std::unique_ptr<Compute>> computes;
  ThermoSettings thermo;
  ThermoSnapshot thermo_snapshot;
  ScriptFlags script_flags;
  std::vector<Dump> dumps;
  RestartOutput restart_output;
  /// Fix states a read_restart file carried, by fix ID: (style, this rank's arrays). A fix defined later with
  /// the same ID and style takes its state back and the entry goes, as LAMMPS's fixes read their restart
  /// info (fix nvt's thermostat chain, say).
  RestartStates restart_fix_states;
  /// The same for computes whose LAMMPS style keeps a fix STORE in restart files
  /// (Compute::keeps_restart_state).
  RestartStates restart_compute_states;
  /// Hands the state a read_restart file carried for the fix or compute `id` of `style` (`kind`: "fix" or
  /// "compute") to `restore`, which checks it, and drops the entry; nothing when the file carried none. A
  /// state written on another rank count, or one `restore` refuses, is an input error at `a`.
  void take_restart_state(RestartStates& states, const std::string& kind, const std::string& id,
                          const std::string& style, io::ArgCursor& a,
                          const std::function<void(const NamedArrays&)>& restore);
  std::vector<H5mdDump> h5md;
  MinSettings min_settings;    // min_style / min_modify
  AtomSortSettings atom_sort;  // LAMMPS's spatial sort of its atom arrays (atom_modify sort), emulated in
                               // Atoms::order at run and minimize set-ups (md/core/lammps_order.hpp)
  CascadeState cascade;
  /// What fix balance and thermo_modify lost set for the backend (declared before it: it outlives it).
  BackendControls backend_controls;
  std::unique_ptr<Backend> backend;
  /// Whether the chosen backend declares `trait` (kSubdomains, kDropsLostAtoms) in its registration.
  bool backend_has(unsigned trait) const;

  // ---- Where the runs stand
  // --------------------------------------------------------------------------------
  bool forces_current = false;  // the backend's result belongs to the current positions
  bool running = false;         // inside a run or minimisation (references may invoke computes)
  // The dry run's `shell cd` into directories a `shell mkdir` only the real run makes: their names, entered
  // in thought (a later `cd ..` leaves them again), while the real working directory stays where it was.
  std::vector<std::string> dry_virtual_dirs;
  bool run_pre = true, run_post = true;  // the next run's `pre` and `post` keywords (reset by each run)
  bool updated = false;          // LAMMPS's first_update: a run or minimisation took place (since clear)
  int atom_variable_depth_ = 0;  // atom-style variables that read others (a guard against cycles)
  std::chrono::steady_clock::time_point run_clock;
  int64_t run_start_step = 0, run_end_step = 0;
  // `run N start S stop E`: the steps ramps (fix nvt's temperature, fix deform's box) run between, LAMMPS's
  // beginstep and endstep; −1: this run's own first and last steps. run_steps clears them.
  int64_t ramp_start = -1, ramp_stop = -1;
  // Atoms at the run's start: thermo's temperature keeps the degrees of freedom it had then when fix deposit
  // adds atoms (LAMMPS's compute temp counts them at init unless compute_modify dynamic/dof yes).
  int64_t run_start_atoms = -1;
  // LAMMPS's expired wall-time limit (timer->is_timeout), set by fix halt: later run and minimize commands do
  // nothing until a fix halt with `error continue` resets it at the end of its run; clear resets it too.
  bool timeout_expired = false;
  // `timer timeout T [every N]`: the wall-time limit in seconds (−1: none) counted from the command, checked
  // every N steps of a run (LAMMPS's Timer::check_timeout); when passed, timeout_expired is set.
  double timeout_limit = -1.0;
  int timeout_every = 10;
  std::string timer_style = "normal", timer_mode = "nosync";  // what `timer` prints
  std::chrono::steady_clock::time_point timeout_start{};
  // Atoms the backend has dropped through fixed faces that thermo has already accounted for (LAMMPS's
  // lost_check compares its atom count at each thermo output).
  int64_t lost_seen = 0;
  RunTotals totals;
  NeighborStats last_stats;

 private:
  /// A scalar time series for H5MD observables/.
  struct Observable {
    std::string name, unit;
    std::function<double()> value;
  };

  /// A thermo keyword read by a formula between runs, as LAMMPS's Thermo::evaluate_keyword: its rules
  /// (failures at the keyword) and the value thermo's computes hold; false when it is read from the state.
  bool thermo_between_runs(const std::string& keyword, const SourcePos& at, double& value);
  /// c_thermo_temp, c_thermo_press[i], c_thermo_pe between runs: the last thermo line's values, which
  /// LAMMPS's thermo computes with these computes; false where the compute itself is to be read.
  bool thermo_compute_between_runs(const Reference& r, double& value);
  /// The registered backend that settings.backend names, new and empty.
  void make_backend();
  // run_loop.cpp
  void apply_load_balance();
  FixContext fix_context();
  void check_finite() const;
  /// One velocity-Verlet step: fixes' hooks around the backend's forces.
  void verlet_step(int64_t end, bool show_progress, double& modify_seconds);
  /// The end-of-run summary LAMMPS prints (loop time, performance, timing breakdown, neighbour counts).
  void print_run_summary(int64_t nsteps, double seconds, double cpu_seconds, const PhaseTimes& pt,
                         double output, double modify, double waited);
  bool eatom_needed(int64_t step) const;
  /// True when something reads the global energy or virial after this step's forces (thermo, progress,
  /// dumps, trajectories, the run's last step, a fix that may read them).
  bool tally_needed(int64_t step, int64_t end, bool progress) const;
  // run/cascade_output.cpp
  void apply_zbl(potentials::EamTables& t) const;
  void cascade_end_of_step(bool last);
  void finish_cascade_report();
  // trajectory_output.cpp
  void open_trajectories();
  void write_trajectories(bool force_all);
  io::H5mdFrame gather_frame(const H5mdDump& h);
  // checkpoint_state.cpp
  /// Writes checkpoint.h5 in the output directory (every rank takes part; rank 0 writes).
  void write_checkpoint();
  /// Everything a checkpoint or restart file holds (collective; complete on rank 0).
  io::CheckpointData checkpoint_data() const;
  /// This rank's share of the per-rank arrays a checkpoint holds under `prefix` (fixes/ID, backend).
  static NamedArrays ranked_arrays(const io::CheckpointData& d, const std::string& prefix, int rank);
  /// The states `d` holds under KIND/ID (KIND "fixes" or "computes") for this rank, or, from a file written
  /// on another rank count, a marker take_restart_state refuses (unless the state is empty).
  RestartStates saved_states(const io::CheckpointData& d, const std::string& kind, int saved_ranks) const;
  /// Reads a checkpoint on rank 0 and broadcasts it; an unusable file fails every rank alike.
  io::CheckpointData read_broadcast(const std::string& path, const SourcePos& at) const;
  /// Loads the restart checkpoint (every rank; rank 0 reads and broadcasts); mismatches are InputErrors.
  void load_checkpoint(const SourcePos& at);
  /// The restart checkpoint, read (rank 0) and broadcast once.
  const io::CheckpointData& restart_data(const SourcePos& at);
  /// Keeps this rank's atoms from checkpoint arrays laid out in rank order (today: one rank keeps all).
  void keep_my_restored_atoms(const io::CheckpointData& d, int rank);
  /// Adds a command to the physics fingerprint unless its style says it changes no physics.
  void record_physics(const io::Command& c, bool physics);
  // dump_output.cpp
  void write_dump_frame(Dump& d);
  /// Writes a gathered frame to the dump's file (rank 0; a new file per frame for a '*' name).
  void emit_dump_frame(Dump& d, const io::DumpFrame& f);
  /// A dump local frame: the local rows of its computes, rank by rank (md/run/dump_local_output.cpp).
  void write_dump_local_frame(Dump& d);

  io::ThermoCsv* csv_;
  std::optional<potentials::EamTables> tables_;
  std::vector<Observable> observables_;
  std::string restart_path_;
  bool restart_loaded_ = false;
  int64_t restart_step_ = -1;  // step of the loaded checkpoint: trajectory frames after it are dropped
  std::map<std::string, int64_t> restart_frames_;  // trajectory frame counts the checkpoint recorded
  // The dry run's restart files: write_restart writes them into a scratch directory (removed with the
  // Simulation) so that a later read_restart of the same name in the script (often after `clear`) is
  // checked against what the script made, without writing anything where the user looks.
  std::string dry_restart_dir_;
  // The dry run has read a thermo keyword, a compute or fix value or an atom's value into a formula: from
  // then on its formulas compute with stand-ins, and a division by zero is NaN there, not an error.
  bool stand_ins_read_ = false;
  std::string dry_restart_path(const std::string& file);
  // The forces and timestep the interrupted run carried into its next step, by atom id: a restart puts them
  // back after the run's set-up, which recomputes forces (a Langevin thermostat's set-up would add friction
  // from full-step velocities where the interrupted run used half-step ones) and the timestep (fix dt/reset).
  std::unordered_map<int64_t, std::array<double, 3>> restart_forces_;
  double restart_dt_ = 0.0;
  bool continuing_run_ = false;  // the next set-up is that of the run a loaded checkpoint interrupted
  int64_t runs_started_ = 0;  // `run` commands begun so far; a checkpoint records the one it was written in
  std::unique_ptr<io::CheckpointData> restart_data_;  // the checkpoint, read at the first `run` of a restart
  std::string physics_text_;                          // commands that enter physics_hash()
  std::string input_name_, input_text_;
  int64_t last_checkpoint_step_ = -1;
  int64_t ramp_begin_ = 0, ramp_end_ = 0;  // this run's LAMMPS beginstep and endstep
  RunHook run_hook_;
  // LAMMPS's randomequal: random() and normal() of equal-style formulas (the script's variables outlive a
  // `clear`, and so does it).
  std::unique_ptr<RandomMars> random_equal_;
  double gauss_second_ = 0.0;
  bool gauss_saved_ = false;
};

}  // namespace wmd::md
