#include "md/run/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>

#include "md/core/velocity.hpp"
#include "md/run/command_registry.hpp"
#include "md/styles/reference.hpp"
#include "potentials/zbl_splice.hpp"

namespace wmd::md {

Simulation::Simulation(io::Log& out, const io::RunSettings& run_settings, bool is_dry_run, io::ThermoCsv* csv)
    : log(out), settings(run_settings), dry_run(is_dry_run), csv_(csv) {
  state.group_names = {"all"};
  comm.set_deterministic(settings.deterministic);
  make_backend();
  if (settings.trajectory_every > 0) {
    H5mdDump h;
    h.file = (settings.output_dir.empty() ? std::string(".") : settings.output_dir) + "/trajectory.h5";
    h.every = settings.trajectory_every;
    h.fields = settings.trajectory_fields;
    if (h.fields.empty()) h.fields = {"position", "velocity", "image", "species", "id"};
    h5md.push_back(std::move(h));
  }
}

void Simulation::clear_system(const io::Command& c) {
  // One H5MD trajectory holds one system: a new one cannot continue output.trajectory's file.
  for (const H5mdDump& h : h5md)
    if (h.id.empty())
      fail_input(c.pos,
                 "clear: output.trajectory records one system and clear starts another; split the "
                 "input in two (write_restart / read_restart carry a state over)");
  state = State{};
  state.group_names = {"all"};
  processors = {0, 0, 0};
  decomp = Decomposition{};
  lattice = Lattice{};
  regions.clear();
  pair_style.clear();
  pair_substyles.clear();
  eam.reset();
  zbl_pair.reset();
  zbl.reset();
  neighbor = NeighborSettings{};
  fixes.clear();
  computes.clear();
  thermo = ThermoSettings{};
  thermo_snapshot = ThermoSnapshot{};
  script_flags = ScriptFlags{};
  dumps.clear();  // closes their files, as LAMMPS's clear deletes its dumps
  h5md.clear();
  restart_output = RestartOutput{};
  restart_fix_states.clear();
  restart_compute_states.clear();
  min_settings = MinSettings{};
  atom_sort = AtomSortSettings{};
  cascade = CascadeState{};
  observables_.clear();
  tables_.reset();
  forces_current = false;
  timeout_expired = false;  // LAMMPS's clear makes a new Timer
  timeout_limit = -1.0;
  timeout_every = 10;
  timer_style = "normal", timer_mode = "nosync";
  updated = false;  // and a new Update
  lost_seen = 0;    // and a new backend counts its lost atoms from 0
  backend_controls = BackendControls{};
  make_backend();
}

void Simulation::make_backend() {
  const BackendStyle* style = BackendRegistry::get().find(settings.backend);
  if (!style)
    fail_input(SourcePos{"<settings>", 0}, "backend '" + settings.backend +
                                               "' is not available in this build (available: " +
                                               BackendRegistry::get().name_list() + ")");
  backend = style->make(BackendArgs{settings, &comm, &decomp, &backend_controls, &lattice});
}

bool Simulation::backend_has(unsigned trait) const {
  const BackendStyle* style = BackendRegistry::get().find(settings.backend);
  return style && (style->traits & trait) == trait;
}

Simulation::~Simulation() {
  if (!dry_restart_dir_.empty() && comm.root()) {
    std::error_code ec;
    std::filesystem::remove_all(dry_restart_dir_, ec);
  }
}

void Simulation::execute(const io::Command& c) {
  const CommandStyle* cmd = CommandRegistry::get().find(c.name);
  if (!cmd) {
    fail_input(c.pos, "unknown or unsupported command '" + c.name +
                          "' (see docs/input.md for the supported subset)");
  }
  record_physics(c, !(cmd->flags & kNoPhysics));
  if (restart_pending() && (cmd->flags & kSkippedOnRestart)) return;  // the checkpoint holds what it sets
  try {
    cmd->run(*this, c);
  } catch (const InputError& e) {
    // A refusal from below the commands (the backend's memory budget, say) knows no line: it is this
    // command's.
    if (e.line() == 0 && e.file() == SourcePos{}.file) fail_input(c.pos, e.message());
    throw;
  }
}

void Simulation::set_decomposition(const io::Command& c) {
  std::array<int, 3> grid;
  if (!settings.cluster_grid.empty()) {
    Decomposition::parse_grid(settings.cluster_grid, grid);
    const int64_t domains = int64_t{grid[0]} * grid[1] * grid[2];  // 100000x100000x100000 overflows an int
    if (domains != comm.size()) {
      fail_input(c.pos, "cluster.grid " + settings.cluster_grid + " has " + std::to_string(domains) +
                            " sub-domains but this run has " + std::to_string(comm.size()) + " MPI ranks");
    }
  } else {
    // LAMMPS's `processors` (a * leaves that direction to the search), else the least-surface grid.
    grid = Decomposition::best_grid(state.box, comm.size(), processors);
  }
  decomp = Decomposition(grid, comm.rank());
  if (!dry_run) {
    log.line("  " + std::to_string(grid[0]) + " by " + std::to_string(grid[1]) + " by " +
             std::to_string(grid[2]) + " MPI processor grid");
  }
}

void Simulation::require_box(const io::Command& c) const {
  if (!state.box.defined)
    fail_input(c.pos, "'" + c.name + "' needs a simulation box (create_box or read_data first)");
}

void Simulation::require_no_box(const io::Command& c) const {
  if (state.box.defined) fail_input(c.pos, "'" + c.name + "' must come before the box is created");
}

uint32_t Simulation::group_of(const io::ArgCursor& a, const std::string& name) const {
  const uint32_t bit = state.group_bit(name);
  if (!bit) a.fail("unknown group '" + name + "'");
  return bit;
}

const potentials::EamTables& Simulation::tables() {
  if (!tables_) {
    potentials::EamTables t = eam->build();
    if (zbl_pair) {
      t.zbl = zbl_pair->build();
      // The pair term's neighbours are the EAM's (the kernels find ZBL pairs among the EAM cut-off's):
      // alone, the all-zero EAM tables take its cut-off; overlaid, it must not reach past the EAM's.
      if (eam->style() == potentials::EamStyle::none)
        t.cutmax = zbl_pair->outer();
      else if (zbl_pair->outer() > t.cutmax)
        fail_input(pair_style_pos,
                   fmt::format("pair_style hybrid/overlay: the zbl outer cut-off {} Å lies beyond the EAM "
                               "cut-off {} Å, which is not supported (the ZBL pairs are found among the "
                               "EAM's neighbours)",
                               zbl_pair->outer(), t.cutmax));
    }
    tables_ = std::move(t);
    apply_zbl(*tables_);
  }
  return *tables_;
}

void Simulation::apply_zbl(potentials::EamTables& t) const {
  if (!zbl) return;
  std::vector<int> done, done_rho;
  for (int i = 1; i <= t.ntypes; ++i)
    for (int j = 1; j <= i; ++j) {
      double rf = zbl->r_f, bf = zbl->b_f;
      for (const auto& p : zbl->pairs) {
        if ((p.i == i && p.j == j) || (p.i == j && p.j == i)) rf = p.r_f, bf = p.b_f;
      }
      const int arr = t.z2r_array(i, j);
      if (std::find(done.begin(), done.end(), arr) == done.end()) {  // a shared array is spliced once
        done.push_back(arr);
        potentials::splice_zbl(t, i, j, zbl->z[i], zbl->z[j], rf, bf);
      }
      for (const int rho : {t.rho_array(i, j), t.rho_array(j, i)}) {
        if (std::find(done_rho.begin(), done_rho.end(), rho) != done_rho.end()) continue;
        done_rho.push_back(rho);
        potentials::splice_density(t, rho, rf, bf);
      }
    }
}

Compute* Simulation::find_compute(const std::string& id) const {
  for (const auto& c : computes)
    if (c->id() == id) return c.get();
  // The computes LAMMPS's thermo output defines at start-up (`compute thermo_temp all temp`, `thermo_press
  // all pressure thermo_temp`, `thermo_pe all pe`), made here when a script first names one.
  static const std::map<std::string, std::vector<std::string>> builtin = {
      {"thermo_temp", {"temp"}}, {"thermo_press", {"pressure", "thermo_temp"}}, {"thermo_pe", {"pe"}}};
  const auto b = builtin.find(id);
  if (b == builtin.end() || !state.box.defined) return nullptr;
  const io::Command cmd{"compute", b->second, SourcePos{"compute " + id, 0}, ""};
  io::ArgCursor a(cmd, 1);
  const ComputeBuildContext ctx = compute_build_context();
  computes.push_back(make_compute(ComputeArgs{id, 1u, b->second[0], a, ctx}));
  return computes.back().get();
}

Fix* Simulation::find_fix(const std::string& id) const {
  for (const auto& f : fixes)
    if (f->id() == id) return f.get();
  return nullptr;
}

FixBuildContext Simulation::fix_build_context() const {
  // With no lattice command the spacings are LAMMPS's default lattice's, `none 1.0`.
  FixBuildContext c{state, regions, lattice.spacing[0], backend_has(kSubdomains) ? &decomp : nullptr,
                    settings.backend};
  c.styles = this;
  c.comm = &comm;
  c.dry_run = dry_run;
  c.restoring = restart_pending();
  for (int d = 0; d < 3; ++d) c.lattice[d] = lattice.spacing[d];
  return c;
}

ComputeBuildContext Simulation::compute_build_context() const {
  ComputeBuildContext c{state, regions, settings.backend};
  c.styles = this;
  c.comm = &comm;
  if (!pair_style.empty()) {
    c.pair_styles.push_back(pair_style);
    c.pair_styles.insert(c.pair_styles.end(), pair_substyles.begin(), pair_substyles.end());
  }
  for (int d = 0; d < 3; ++d) c.xlattice[d] = lattice.spacing[d];
  return c;
}

bool Simulation::has_variable(const std::string& name) const {
  return vars && vars->defined(name);
}

double Simulation::variable(const std::string& name) {
  if (!vars) throw RunError("variable " + name + " referenced, but this input has no variables");
  // Thermo's columns, fix print, fix ave/time, ...: errors in the formula name the variable's definition.
  if (!vars->defined(name))
    fail_input(SourcePos{"v_" + name, 0}, "variable " + name + " does not exist (any more)");
  return vars->value(name, vars->position(name));
}

std::string Simulation::substitute(const std::string& text, const SourcePos& at) {
  // LAMMPS's Input::substitute (fix print's text at each of its steps).
  return vars ? vars->substitute(text, at) : text;
}

void Simulation::check_thermo_variables() const {
  // LAMMPS's Output::init: the variables that give thermo's and the dumps' next steps.
  auto check_every = [&](const std::string& name, const SourcePos& at, const std::string& what) {
    if (name.empty()) return;
    if (!vars || !vars->defined(name))
      fail_input(at, fmt::format("variable {} for {} does not exist (LAMMPS: \"Variable name for {} does not "
                                 "exist\")",
                                 name, what, what));
    if (!vars->equal_style(name))
      fail_input(at,
                 fmt::format("variable {} for {} is {}-style, not equal-style (LAMMPS: \"Variable for {} is "
                             "invalid style\")",
                             name, what, vars->style_of(name), what));
  };
  check_every(thermo.every_var, thermo.every_pos, "thermo every");
  for (const Dump& d : dumps) check_every(d.every_var, d.every_pos, "dump every");
  // LAMMPS: "Variable name for restart does not exist", "Variable for restart is invalid style".
  check_every(restart_output.var_single, restart_output.pos_single, "restart");
  check_every(restart_output.var_double, restart_output.pos_double, "restart");
  for (const std::string& k : thermo_keywords()) {
    if (k.rfind("v_", 0) != 0) continue;
    const std::string name = k.substr(2);
    // LAMMPS's Thermo::init: "Could not find thermo custom variable name", "Thermo custom variable is not
    // equal-style variable".
    if (!vars || !vars->defined(name))
      fail_input(thermo.pos, "thermo_style custom " + k + ": variable " + name +
                                 " does not exist (LAMMPS: \"Could not find thermo custom variable name\")");
    if (!vars->equal_style(name))
      fail_input(thermo.pos,
                 "thermo_style custom " + k + ": variable " + name + " is " + vars->style_of(name) +
                     "-style, not equal-style (LAMMPS: \"Thermo custom variable is not equal-style "
                     "variable\")");
  }
}

int64_t Simulation::output_step_from(const std::string& var, const SourcePos& at, const std::string& who,
                                     const std::string& lammps_error) {
  const double v = variable(var);
  if (!(v >= static_cast<double>(state.step + 1)))  // NaN too
    fail_input(at, fmt::format("{}: variable {} returned {}, not a step after step {} (LAMMPS: \"{}\")", who,
                               var, v, state.step, lammps_error));
  // Beyond any run: never due (LAMMPS's bigint cast of a larger value is not defined).
  return v < 4.0e18 ? static_cast<int64_t>(v) : static_cast<int64_t>(4.0e18);
}

namespace {

bool one_of(const std::string& k, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (k == n) return true;
  return false;
}

bool pressure_vector_keyword(const std::string& k) {
  return one_of(k, {"pxx", "pyy", "pzz", "pxy", "pxz", "pyz"});
}

bool energy_keyword(const std::string& k) {
  return one_of(k, {"evdwl", "ecoul", "epair", "ebond", "eangle", "edihed", "eimp", "emol", "elong"});
}

}  // namespace

void Simulation::thermo_setup(bool assumed) {
  // Which of thermo's computes the style uses (LAMMPS's Thermo::parse_fields): temperature for temp, ke,
  // etotal and enthalpy; the pressure's scalar for press and enthalpy, its vector for pxx..pyz; the
  // potential energy for pe, etotal, enthalpy and the energy terms.
  ThermoSnapshot& t = thermo_snapshot;
  t.initialised = true;
  t.temp = t.press = t.pvector = t.pe = false;
  for (const std::string& k : thermo_keywords()) {
    t.temp = t.temp || one_of(k, {"temp", "ke", "etotal", "enthalpy"});
    t.press = t.press || one_of(k, {"press", "enthalpy"});
    t.pvector = t.pvector || pressure_vector_keyword(k);
    t.pe = t.pe || one_of(k, {"pe", "etotal", "enthalpy"}) || energy_keyword(k);
  }
  if (dry_run || assumed) {
    // The dry run does not evolve: the set-up values stand for the run's last line.
    t.step = state.step;
    t.values.clear();
  }
}

void Simulation::record_thermo_snapshot(const ThermoContext& ctx) {
  ThermoSnapshot& t = thermo_snapshot;
  t.step = state.step;
  t.values.clear();
  std::vector<std::string> keys;
  if (t.temp) keys.insert(keys.end(), {"temp", "ke"});
  if (t.press) keys.push_back("press");
  // The pressure tensor's components the line printed (each costs a reduction; one the line did not print is
  // read from the state if a formula asks for it).
  for (const std::string& k : thermo_keywords())
    if (pressure_vector_keyword(k)) keys.push_back(k);
  if (t.pe)
    keys.insert(keys.end(),
                {"pe", "evdwl", "ecoul", "epair", "ebond", "eangle", "edihed", "eimp", "emol", "elong"});
  if (t.pe && t.temp) keys.push_back("etotal");
  if (t.pe && t.temp && t.press) keys.push_back("enthalpy");
  // The line computed the temperature it needs (cached in ctx): these add no reduction but the pressure
  // components' kinetic parts, which the line computed too. Raw values (not normalised).
  ThermoContext raw = ctx;
  raw.normalise = false;
  for (const std::string& k : keys) {
    double v = 0.0;
    thermo_value(k, raw, v);
    t.values[k] = v;
  }
}

void Simulation::timestep_reset() {
  for (auto& c : computes)
    c->invoked_scalar = c->invoked_vector = c->invoked_array = c->invoked_peratom = c->invoked_local = -1;
  thermo_snapshot.step = -1;
}

void Simulation::clearstep_computes() {
  for (auto& c : computes) c->invoked_flag = 0;
}

double Simulation::ghost_cutoff() const {
  // LAMMPS's cutghost: the larger of cutneighmax (the pair cutoff plus the skin; 0 without a pair style, the
  // skin being added only to positive cutoffs) and comm_modify's cutoff.
  const double cutneighmax = tables_ && tables_->cutmax > 0.0 ? tables_->cutmax + neighbor.skin : 0.0;
  return std::max(cutneighmax, script_flags.comm_cutoff);
}

ComputeContext Simulation::compute_context() {
  // The tables are built at their first use (a run's set-up); a compute's init before it (compute rdf's
  // cutoff) needs them as soon as the potential is complete.
  const potentials::EamTables* t = tables_ ? &*tables_ : nullptr;
  if (!t && !dry_run && potential_complete()) t = &tables();
  ComputeContext c{state, comm, forces_current ? &backend->result() : nullptr, this, t};
  c.dry_run = dry_run;
  return c;
}

double Simulation::fix_energy() const {
  double e = 0.0;
  for (const auto& f : fixes) {
    double v = 0.0;
    if (f->energy_in_pe() && f->scalar(v)) e += v;
  }
  return e;
}

ThermoContext Simulation::thermo_context(const ForceResult* force, bool normalise) {
  ThermoContext ctx{&state, force, 0.0, run_start_step, normalise, &comm};
  ctx.run_begin_step = ramp_begin_;
  ctx.fix_energy = fix_energy();
  for (int d = 0; d < 3; ++d) ctx.lattice[d] = lattice.spacing[d];
  if (thermo.temp_id.empty()) {
    if (running && run_start_atoms >= 0 && natoms() != run_start_atoms) {
      double dof = 0.0;
      const double t = group_temperature(state, comm, 1u, &dof);
      const double dof0 = 3.0 * static_cast<double>(run_start_atoms) - 3.0;
      ctx.temp_sum = dof0 > 0.0 ? t * dof / dof0 : 0.0;
      ctx.temp_dof = dof0;
    }
    return ctx;
  }
  Compute* t = find_compute(thermo.temp_id);
  if (!t) throw RunError("thermo_modify temp: compute " + thermo.temp_id + " was deleted (uncompute)");
  const ComputeContext cc = compute_context();
  ctx.temp_sum = invoke_scalar(*t, cc);
  ctx.temp_dof = t->dof();
  ctx.ktensor = invoke_vector(*t, cc).data();
  return ctx;
}

bool Simulation::atom_value(const std::string& name, double& value) {
  // LAMMPS's atom values in formulas: x[N], vx[N], fx[N], mass[N], type[N] (atom N's, whichever rank
  // holds it; every rank evaluates formulas, so the owner's value is summed to all).
  const size_t open = name.find('[');
  if (open == std::string::npos || name.back() != ']' || name.find('[', open + 1) != std::string::npos)
    return false;
  const std::string attr = name.substr(0, open), index = name.substr(open + 1, name.size() - open - 2);
  static const char* const kAttrs[] = {"x",  "y",  "z",  "vx",   "vy",   "vz",
                                       "fx", "fy", "fz", "mass", "type", "id"};
  if (std::none_of(std::begin(kAttrs), std::end(kAttrs), [&](const char* a) { return attr == a; }))
    return false;
  long long id = 0;
  if (!io::parse_integer(index, id) || id < 1)
    fail_input(SourcePos{name, 0}, "'" + name + "': the atom index must be an atom ID (a positive integer)");
  const Atoms& a = state.atoms;
  double mine[2] = {0.0, 0.0};  // value, found
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.id[i] != id) continue;
    const double v[] = {a.x[i],
                        a.y[i],
                        a.z[i],
                        a.vx[i],
                        a.vy[i],
                        a.vz[i],
                        a.fx[i],
                        a.fy[i],
                        a.fz[i],
                        state.mass[a.type[i]],
                        static_cast<double>(a.type[i]),
                        static_cast<double>(a.id[i])};
    mine[0] = v[std::find_if(std::begin(kAttrs), std::end(kAttrs), [&](const char* k) { return attr == k; }) -
                std::begin(kAttrs)];
    mine[1] = 1.0;
  }
  comm.sum_in_rank_order(mine, 2);  // one rank holds the atom, the others add zeros: exact
  if (mine[1] == 0.0)
    fail_input(SourcePos{name, 0}, "'" + name + "': no atom has ID " + index +
                                       " (LAMMPS: \"Variable atom ID " + index +
                                       " is too large\" or not found)");
  value = mine[0];
  return true;
}

bool Simulation::keyword_value(const std::string& name, double& value, const SourcePos* where) {
  const SourcePos at = where ? *where : SourcePos{name, 0};
  stand_ins_read_ = stand_ins_read_ || dry_run;  // what the script computes from here on uses stand-ins
  if (cascade_thermo(name, value)) return true;  // vacancies, interstitials, clusters
  if (atom_value(name, value)) return true;
  // c_ID, c_ID[i], f_ID, … inside a variable's formula (LAMMPS's rules for computes between runs apply).
  Reference r;
  const io::Command none{name, {}, at, ""};
  const io::ArgCursor cursor(none);
  if (name.size() > 2 && name[0] == 'v' && name[1] == '_' && name.find('[') != std::string::npos)
    return atom_variable_value(name, at, value);
  if (name.size() > 2 && name[0] != 'v' && parse_reference(name, r, cursor)) {
    check_reference(r, Reference::Shape::global, *this, cursor, "variable");
    // LAMMPS: "Fix in variable not computed at a compatible time" (fix ave/time between its Nfreq steps).
    const Fix* f = r.kind == Reference::Kind::fix ? find_fix(r.id) : nullptr;
    if (f && running && f->global_freq() > 1 && state.step % f->global_freq() != 0)
      fail_input(at, name + ": fix " + r.id + " is computed every " + std::to_string(f->global_freq()) +
                         " steps, not at step " + std::to_string(state.step) +
                         " (LAMMPS: \"Fix in variable not computed at a compatible time\")");
    if (!running && thermo_compute_between_runs(r, value)) return true;
    value = reference_value(r, compute_context(), at);
    return true;
  }
  if (thermo_header(name).empty()) return false;
  if (!running && thermo_between_runs(name, at, value)) return true;
  const ThermoContext ctx = thermo_context(forces_current ? &backend->result() : nullptr, thermo.norm);
  return thermo_value(name, ctx, value);
}

bool Simulation::thermo_compute_between_runs(const Reference& r, double& value) {
  // thermo_temp, thermo_press and thermo_pe are computed by each thermo line whose style uses them; wafermd's
  // thermo computes those values itself, so between runs they come from the line's snapshot (a compute that
  // is current on its own, having been invoked at this step, is read as it is).
  if (r.kind != Reference::Kind::compute || r.j != 0 || dry_run) return false;
  const ThermoSnapshot& t = thermo_snapshot;
  if (!t.initialised || t.step != state.step) return false;
  const Compute* c = find_compute(r.id);
  if (!c || (r.i == 0 ? c->invoked_scalar : c->invoked_vector) == state.step) return false;
  std::string key;
  if (r.id == "thermo_temp" && r.i == 0 && t.temp && thermo.temp_id.empty())
    key = "temp";
  else if (r.id == "thermo_press" && r.i == 0 && t.press)
    key = "press";
  else if (r.id == "thermo_press" && r.i >= 1 && r.i <= 6 && t.pvector)
    key = std::vector<std::string>{"pxx", "pyy", "pzz", "pxy", "pxz", "pyz"}[r.i - 1];
  else if (r.id == "thermo_pe" && r.i == 0 && t.pe)
    key = "pe";
  if (key.empty()) return false;
  if (const auto v = t.values.find(key); v != t.values.end()) {
    value = v->second;
    return true;
  }
  // A pressure component the line did not print: from the state (as the line would have given it).
  ThermoContext ctx = thermo_context(forces_current ? &backend->result() : nullptr, false);
  return thermo_value(key, ctx, value);
}

bool Simulation::thermo_between_runs(const std::string& k, const SourcePos& at, double& value) {
  // LAMMPS's Thermo::evaluate_keyword between runs (update->whichflag == 0).
  if (one_of(k, {"elapsed", "elaplong", "cpu", "tpcpu", "spcpu", "cpuremain"}))
    fail_input(at, "thermo keyword " + k +
                       " cannot be read between runs (LAMMPS: \"This variable thermo keyword cannot be used "
                       "between runs\")");
  const ThermoSnapshot& t = thermo_snapshot;
  const bool current = t.step >= 0 && t.step == state.step;
  // `used`: the style uses the compute (LAMMPS's pointer is set); `computed`: the line computed this output.
  auto need = [&](bool used, const char* what, bool computed = true) {
    if (!(t.initialised && used))
      fail_input(at, "thermo keyword " + k + " read between runs needs thermo's " + what +
                         " compute, which the thermo style does not use or no run has set up yet (LAMMPS: "
                         "\"Thermo keyword in variable requires thermo to use/init " +
                         what + "\"): print it in thermo output, or read it after a run");
    if (!current || !computed)
      fail_input(at,
                 "thermo keyword " + k + " read between runs is not current: thermo last computed it " +
                     (t.step < 0 || !computed ? std::string("never (or reset_timestep came since)")
                                              : "at step " + std::to_string(t.step)) +
                     ", the step is " + std::to_string(state.step) +
                     " (LAMMPS: \"Compute used in variable thermo keyword between runs is not current\")");
  };
  if (energy_keyword(k)) {
    // LAMMPS: the energy must have been summed at this step (update->eflag_global).
    if (!current)
      fail_input(at, "thermo keyword " + k + " read between runs: the energy was not summed at step " +
                         std::to_string(state.step) +
                         " (LAMMPS: \"Energy was not tallied on needed timestep\"); read it after a run");
    need(t.pe, "pe");
  } else if (k == "temp" || k == "ke") {
    need(t.temp, "temp");
  } else if (k == "press") {
    need(t.press || t.pvector, "press", t.press);  // the tensor alone leaves the scalar uncomputed
  } else if (pressure_vector_keyword(k)) {
    need(t.press || t.pvector, "press", t.pvector);
  } else if (k == "pe") {
    need(t.pe, "pe");
  } else if (k == "etotal") {
    need(t.pe, "pe"), need(t.temp, "temp");
  } else if (k == "enthalpy") {
    need(t.pe, "pe"), need(t.temp, "temp"), need(t.press, "press");
  } else {
    return false;  // step, atoms, box, time: read from the state as it is
  }
  const auto v = t.values.find(k);
  if (v == t.values.end()) return false;  // the dry run: set-up values
  // The values are kept raw; thermo_modify norm divides the extensive ones by the atoms there are now.
  value = v->second;
  if (thermo.norm && thermo_is_extensive(k)) {
    const double n = static_cast<double>(natoms());
    if (n > 0) value /= n;
  }
  return true;
}

}  // namespace wmd::md
