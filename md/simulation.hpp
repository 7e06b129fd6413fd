// A simulation driven by an ordered list of commands (LAMMPS subset or translated YAML): it owns the state,
// the potential, fixes, computes, thermo and dump settings, and runs the velocity-Verlet loop on a backend.
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/command.hpp"
#include "io/dump_text.hpp"
#include "io/lammps_script.hpp"
#include "io/output_files.hpp"
#include "io/run_settings.hpp"
#include "io/thermo_format.hpp"
#include "md/backend.hpp"
#include "md/lattice.hpp"
#include "md/neighbor_settings.hpp"
#include "md/region.hpp"
#include "md/state.hpp"
#include "md/thermo.hpp"
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

  const State& state() const { return s_; }
  const RunTotals& totals() const { return totals_; }
  const NeighborStats& last_neighbor_stats() const { return last_stats_; }
  std::string backend_name() const { return settings_.backend; }

 private:
  struct Fix {
    std::string id, style;
    uint32_t group;
  };
  struct Compute {
    std::string id, style;
    uint32_t group;
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
  void cmd_undump(const io::Command& c);
  // run_loop.cpp
  void cmd_run(const io::Command& c);
  void run_steps(int64_t nsteps);
  void integrate_initial();
  void integrate_final();
  void half_kick(const Fix& f);
  void check_finite() const;
  void thermo_output(bool header);
  void write_dumps(bool force_all);
  bool eatom_needed(int64_t step) const;
  // dump_output.cpp
  void write_dump_frame(Dump& d);
  double per_atom_compute(const Compute& cp, size_t i) const;

  void require_box(const io::Command& c) const;
  void require_no_box(const io::Command& c) const;
  uint32_t group_of(const io::ArgCursor& a, const std::string& name) const;
  const potentials::EamTables& tables();
  std::vector<std::string> thermo_keywords() const;

  io::Log& log_;
  io::RunSettings settings_;
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
  std::vector<Fix> fixes_;
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
  RunTotals totals_;
  NeighborStats last_stats_;
};

}  // namespace wmd::md
