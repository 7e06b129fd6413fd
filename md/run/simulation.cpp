#include "md/run/simulation.hpp"

#include <functional>
#include <unordered_map>

#include "md/cluster/cluster_backend.hpp"
#include "md/mesh/mesh_backend.hpp"

namespace wmd::md {

Simulation::Simulation(io::Log& log, const io::RunSettings& settings, bool dry_run, io::ThermoCsv* csv)
    : log_(log), settings_(settings), dry_run_(dry_run), csv_(csv) {
  s_.group_names = {"all"};
  comm_.set_deterministic(settings_.deterministic);
  if (settings_.backend == "mesh") {
    mesh::MeshOptions mo;
    mo.wafer = settings_.mesh_wafer;
    mo.fp64 = settings_.mesh_precision == "fp64";
    mo.deterministic = settings_.deterministic;
    backend_ = std::make_unique<mesh::MeshBackend>(mo, &comm_);
  } else if (settings_.backend == "cluster") {
    backend_ = std::make_unique<ClusterBackend>(&comm_, &decomp_, settings_.deterministic,
                                                parse_pair_precision(settings_.cluster_precision));
  } else {
    fail_input(SourcePos{"<settings>", 0}, "backend '" + settings_.backend +
                                               "' is not available in this build (available: cluster, mesh)");
  }
  if (settings_.trajectory_every > 0) {
    H5md h;
    h.file = (settings_.output_dir.empty() ? std::string(".") : settings_.output_dir) + "/trajectory.h5";
    h.every = settings_.trajectory_every;
    h.fields = settings_.trajectory_fields;
    if (h.fields.empty()) h.fields = {"position", "velocity", "image", "species", "id"};
    h5md_.push_back(std::move(h));
  }
}

Simulation::~Simulation() = default;

void Simulation::execute(const io::Command& c) {
  using Handler = void (Simulation::*)(const io::Command&);
  static const std::unordered_map<std::string, Handler> handlers = {
      {"units", &Simulation::cmd_units},
      {"atom_style", &Simulation::cmd_atom_style},
      {"boundary", &Simulation::cmd_boundary},
      {"processors", &Simulation::cmd_processors},
      {"balance", &Simulation::cmd_balance},
      {"lattice", &Simulation::cmd_lattice},
      {"region", &Simulation::cmd_region},
      {"create_box", &Simulation::cmd_create_box},
      {"create_atoms", &Simulation::cmd_create_atoms},
      {"read_data", &Simulation::cmd_read_data},
      {"write_data", &Simulation::cmd_write_data},
      {"mass", &Simulation::cmd_mass},
      {"group", &Simulation::cmd_group},
      {"velocity", &Simulation::cmd_velocity},
      {"displace_atoms", &Simulation::cmd_displace_atoms},
      {"set", &Simulation::cmd_set},
      {"pair_style", &Simulation::cmd_pair_style},
      {"pair_coeff", &Simulation::cmd_pair_coeff},
      {"neighbor", &Simulation::cmd_neighbor},
      {"neigh_modify", &Simulation::cmd_neigh_modify},
      {"timestep", nullptr},
      {"reset_timestep", nullptr},
      {"fix", &Simulation::cmd_fix},
      {"unfix", &Simulation::cmd_unfix},
      {"compute", &Simulation::cmd_compute},
      {"thermo", &Simulation::cmd_thermo},
      {"thermo_style", &Simulation::cmd_thermo_style},
      {"thermo_modify", &Simulation::cmd_thermo_modify},
      {"dump", &Simulation::cmd_dump},
      {"dump_modify", &Simulation::cmd_dump_modify},
      {"undump", &Simulation::cmd_undump},
      {"run", &Simulation::cmd_run},
      {"min_style", &Simulation::cmd_min_style},
      {"min_modify", &Simulation::cmd_min_modify},
      {"minimize", &Simulation::cmd_minimize},
      {"print", nullptr},
      {"zbl_splice", &Simulation::cmd_zbl_splice},
      {"write_potential", &Simulation::cmd_write_potential},
      {"cascade", &Simulation::cmd_cascade},
      {"defects", &Simulation::cmd_defects},
      {"echo", nullptr},
  };
  auto it = handlers.find(c.name);
  if (it == handlers.end()) {
    fail_input(c.pos, "unknown or unsupported command '" + c.name +
                          "' (see docs/input.md for the supported subset)");
  }
  record_physics(c);
  if (restart_pending() && c.name == "velocity") return;  // the checkpoint holds the velocities
  if (c.name == "fix" && c.args.size() >= 3 && c.args[2] == "box/relax") {
    cmd_fix_box_relax(c);
  } else if (c.name == "unfix" && c.args.size() == 1 && !box_relax_id_.empty() &&
             c.args[0] == box_relax_id_) {
    box_relax_ = BoxRelax{};
    box_relax_id_.clear();
  } else if (c.name == "timestep") {
    io::ArgCursor a(c);
    const double dt = a.positive("the timestep (ps)");
    a.finish();
    s_.dt = dt;
  } else if (c.name == "reset_timestep") {
    io::ArgCursor a(c);
    s_.step = a.integer("the step number", 0, 4000000000000000000LL);
    if (a.peek() == "time") {
      a.word("time");
      s_.time = a.non_negative("the time (ps)");
    }
    a.finish();
  } else if (c.name == "print") {
    std::string text;
    for (const auto& w : c.args) text += (text.empty() ? "" : " ") + w;
    if (!dry_run_) log_.line(text);
  } else if (c.name == "echo") {
    io::ArgCursor a(c);
    a.choice("an echo style", {"none", "screen", "log", "both"});
    a.finish();
  } else {
    (this->*(it->second))(c);
  }
}

void Simulation::set_decomposition(const io::Command& c) {
  std::array<int, 3> grid;
  if (!settings_.cluster_grid.empty()) {
    Decomposition::parse_grid(settings_.cluster_grid, grid);
    if (grid[0] * grid[1] * grid[2] != comm_.size()) {
      fail_input(c.pos, "cluster.grid " + settings_.cluster_grid + " has " +
                            std::to_string(grid[0] * grid[1] * grid[2]) + " sub-domains but this run has " +
                            std::to_string(comm_.size()) + " MPI ranks");
    }
  } else {
    // LAMMPS's `processors` (a * leaves that direction to the search), else the least-surface grid.
    grid = Decomposition::best_grid(s_.box, comm_.size(), processors_);
  }
  decomp_ = Decomposition(grid, comm_.rank());
  if (!dry_run_) {
    log_.line("  " + std::to_string(grid[0]) + " by " + std::to_string(grid[1]) + " by " +
              std::to_string(grid[2]) + " MPI processor grid");
  }
}

void Simulation::require_box(const io::Command& c) const {
  if (!s_.box.defined)
    fail_input(c.pos, "'" + c.name + "' needs a simulation box (create_box or read_data first)");
}

void Simulation::require_no_box(const io::Command& c) const {
  if (s_.box.defined) fail_input(c.pos, "'" + c.name + "' must come before the box is created");
}

uint32_t Simulation::group_of(const io::ArgCursor& a, const std::string& name) const {
  const uint32_t bit = s_.group_bit(name);
  if (!bit) a.fail("unknown group '" + name + "'");
  return bit;
}

const potentials::EamTables& Simulation::tables() {
  if (!tables_) {
    tables_ = eam_->build();
    apply_zbl(*tables_);
  }
  return *tables_;
}

bool Simulation::keyword_value(const std::string& name, double& value) {
  if (cascade_thermo(name, value)) return true;  // vacancies, interstitials, clusters
  ThermoContext ctx{
      &s_, forces_current_ ? &backend_->result() : nullptr, 0.0, run_start_step_, thermo_norm_, &comm_};
  return thermo_value(name, ctx, value);
}

}  // namespace wmd::md
