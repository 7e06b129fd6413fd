// `min_style`, `min_modify` and `minimize`: the LAMMPS minimisation commands, with LAMMPS's log (thermo every
// `thermo` iterations, then "Minimization stats" and the timing summary). `fix box/relax` is a fix style
// (md/styles/fixes/fix_box_relax.cpp) that minimize reads.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>

#include "md/core/resources.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/cpu_use.hpp"
#include "md/run/signals.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

// The backend as the minimiser sees it: after every force computation the fixes that act while minimising
// (setforce, addforce, aveforce, viscous, indent, spring: LAMMPS's min_setup and min_post_force) change the
// forces, and those with `fix_modify energy yes` add their energies.
class MinimizeForces : public Backend {
 public:
  explicit MinimizeForces(Simulation& sim) : sim_(sim), b_(*sim.backend) {}
  std::string name() const override { return b_.name(); }
  void setup(State& s, const potentials::EamTables& t, const NeighborSettings& nb, bool eatom) override {
    b_.setup(s, t, nb, eatom || eatom_wanted());
    apply();
  }
  void compute(State& s, bool eatom, bool tally) override {
    b_.compute(s, eatom || eatom_wanted(), tally);
    apply();
  }
  // With `fix_modify energy yes` the minimised energy includes the fixes' energies (LAMMPS's compute pe of
  // Min::energy_force).
  const ForceResult& result() const override { return with_fix_energy_ ? with_fixes_ : b_.result(); }
  NeighborStats neighbor_stats() const override { return b_.neighbor_stats(); }
  PhaseTimes phase_times() const override { return b_.phase_times(); }
  void charge(const MeshWork& w) override { b_.charge(w); }

 private:
  // A per-atom energy compute (pe/atom) may be read by thermo, a dump or a print after any evaluation: the
  // minimiser's steps are its iterations, and which evaluation ends one is known only afterwards.
  bool eatom_wanted() const {
    for (const auto& c : sim_.computes)
      if (c->needs_eatom()) return true;
    return false;
  }
  void apply() {
    FixContext fc{sim_.state, sim_.comm};
    fc.force = &b_.result();
    fc.styles = &sim_;
    fc.tables = &sim_.tables();
    with_fix_energy_ = false;
    for (auto& f : sim_.fixes) {
      if (f->changes_forces_when_minimizing()) f->post_force(fc);
      f->min_post_force(fc);
      with_fix_energy_ = with_fix_energy_ || f->energy_in_pe();
    }
    if (!with_fix_energy_) return;
    with_fixes_ = b_.result();
    with_fixes_.energy += sim_.fix_energy();
  }
  Simulation& sim_;
  Backend& b_;
  bool with_fix_energy_ = false;
  ForceResult with_fixes_;
};

void cmd_min_style(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  sim.min_settings.style = a.choice("a min style (cg or fire)", {"cg", "fire"});
  a.finish();
}

void cmd_min_modify(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  if (a.done()) a.fail("min_modify needs keywords (dmax, line, norm, or FIRE parameters)");
  while (!a.done()) {
    const std::string key =
        a.choice("a min_modify keyword",
                 {"dmax", "line", "norm", "delaystep", "dtgrow", "dtshrink", "alpha0", "alphashrink", "tmax",
                  "tmin", "halfstepback", "initialdelay", "vdfmax", "integrator"});
    if (key == "dmax") {
      sim.min_settings.dmax = a.positive("dmax (Å)");
    } else if (key == "line") {
      sim.min_settings.line = a.choice("a line search", {"backtrack", "quadratic", "forcezero"});
    } else if (key == "norm") {
      sim.min_settings.norm = a.choice("a norm", {"two", "max", "inf"});
    } else if (key == "delaystep") {
      sim.min_settings.delaystep = a.integer("delaystep", 0, 2000000000);
    } else if (key == "dtgrow") {
      sim.min_settings.dtgrow = a.positive("dtgrow");
      if (sim.min_settings.dtgrow < 1.0) a.fail("dtgrow must be >= 1");
    } else if (key == "dtshrink") {
      sim.min_settings.dtshrink = a.positive("dtshrink");
      if (sim.min_settings.dtshrink > 1.0) a.fail("dtshrink must be <= 1");
    } else if (key == "alpha0") {
      sim.min_settings.alpha0 = a.non_negative("alpha0");
      if (sim.min_settings.alpha0 > 1.0) a.fail("alpha0 must be <= 1");
    } else if (key == "alphashrink") {
      sim.min_settings.alphashrink = a.positive("alphashrink");
      if (sim.min_settings.alphashrink > 1.0) a.fail("alphashrink must be <= 1");
    } else if (key == "tmax") {
      sim.min_settings.tmax = a.positive("tmax");
    } else if (key == "tmin") {
      sim.min_settings.tmin = a.positive("tmin");
    } else if (key == "halfstepback") {
      sim.min_settings.halfstepback = a.yes_no("halfstepback");
    } else if (key == "initialdelay") {
      sim.min_settings.initialdelay = a.yes_no("initialdelay");
    } else if (key == "vdfmax") {
      sim.min_settings.vdfmax = a.integer("vdfmax", 0, 2000000000);
    } else {
      a.choice("a FIRE integrator (only eulerimplicit is supported)", {"eulerimplicit"});
    }
  }
}

void cmd_minimize(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  if (sim.timeout_expired) return;  // LAMMPS ignores minimize once fix halt stopped a run
  io::ArgCursor a(c);
  MinSettings ms = sim.min_settings;
  ms.normalize = sim.thermo.norm;
  ms.etol = a.non_negative("the energy tolerance");
  ms.ftol = a.non_negative("the force tolerance (eV/Å)");
  // LAMMPS 2021 reads both as int (utils::inumeric: atoi): a larger integer keeps its low 32 bits, so
  // 10000000000 is 1410065408 and 3000000000 is negative (one iteration, then the evaluation limit), as lmp.
  const auto as_lammps_int = [](long long v) {
    return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v)));
  };
  ms.maxiter = as_lammps_int(a.integer("the maximum number of iterations", LLONG_MIN, LLONG_MAX));
  ms.maxeval = as_lammps_int(a.integer("the maximum number of force evaluations", LLONG_MIN, LLONG_MAX));
  a.finish();
  // LAMMPS's laststep < beginstep check.
  if (ms.maxiter < 0) a.fail("Too many iterations (LAMMPS's error for a maximum below 0, as read)");
  if (ms.etol >= 1.0) a.fail("the energy tolerance must be < 1 (it is relative)");
  // fix box/relax (at most one, as in LAMMPS) makes the box lengths degrees of freedom.
  BoxRelax box_relax;
  for (const auto& f : sim.fixes) {
    if (!f->box_relax()) continue;
    if (box_relax.active) a.fail("more than one fix box/relax is defined");
    box_relax = *f->box_relax();
  }
  if (ms.style == "fire" && box_relax.active)
    a.fail("min_style fire cannot relax the box (fix box/relax needs min_style cg), as in LAMMPS");
  if (!sim.eam || !sim.eam->complete())
    a.fail("minimize needs a complete pair_style and pair_coeff set for every atom type");
  for (int t = 1; t <= sim.state.ntypes; ++t) {
    if (sim.state.mass[t] <= 0.0) a.fail("atom type " + std::to_string(t) + " has no mass");
  }
  if (sim.natoms() == 0)
    a.fail("minimize needs atoms (create_atoms or read_data)");  // all ranks: one may hold none
  sim.check_thermo_variables();
  if (sim.dry_run) return sim.thermo_setup();

  struct Running {  // references invoke computes while minimising (LAMMPS's in-run rule)
    bool& flag;
    ~Running() { flag = false; }
  } running_guard{sim.running};
  sim.running = true;
  if (sim.neighbor.every != 1 || sim.neighbor.delay != 0 || !sim.neighbor.check)
    sim.log.line("WARNING: Using 'neigh_modify every 1 delay 0 check yes' setting during minimization");
  sim.log.line(fmt::format("Setting up {} style minimization ...", ms.style));
  sim.log.line("  Unit style    : metal");
  sim.log.line("  Current step  : " + std::to_string(sim.state.step));
  if (box_relax.active)  // LAMMPS's Min::setup: the P·V energy of fix box/relax is in the minimised energy
    sim.log.line(
        fmt::format("WARNING: Energy due to {} extra global DOFs will be included in minimizer energies",
                    box_relax.ndof()));
  sim.run_start_step = sim.state.step;
  sim.set_begin_step(sim.state.step);
  // Thermo samples of a minimisation are not dynamics: keep them out of report.json's drift fit.
  const size_t nsamples = sim.totals.sample_time.size();
  const RunTotals saved = sim.totals;
  const Comm& world = sim.comm;
  const int64_t start_step = sim.state.step;
  const auto loop_start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  sim.run_clock = loop_start;
  sim.updated = true;  // LAMMPS's first_update: a later `run … pre no` may skip its set-up
  // LAMMPS's time is atime + (step − atimestep)·dt and a minimisation advances the step but not atimestep:
  // the Time column grows by dt per iteration, until the next run's set-up drops the lag (Integrate::init).
  if (sim.state.time_lag_from < 0) sim.state.time_lag_from = start_step;
  double output = 0.0;
  auto each = [&](bool first, bool last) {
    sim.forces_current = true;
    const auto t0 = std::chrono::steady_clock::now();
    if (first) {
      const double mem = current_rss_mb();
      sim.log.line(
          fmt::format("Per MPI rank memory allocation (min/avg/max) = {:.4g} | {:.4g} | {:.4g} Mbytes",
                      world.min(mem), world.sum_in_rank_order(mem) / world.size(), world.max(mem)));
      sim.thermo_output(true);
      sim.write_dumps(true);  // LAMMPS's Output::setup: the set-up's frame too
      if (!sim.thermo.every_var.empty()) sim.thermo.next = sim.thermo_next_from_variable();
      return;
    }
    if (last || sim.thermo_due(sim.state.step)) sim.thermo_output(false);
    sim.write_dumps(false);
    // The minimisation's last iteration prints a row whatever the variable says (LAMMPS's Min::run).
    if (!sim.thermo.every_var.empty() && sim.state.step == sim.thermo.next)
      sim.thermo.next = sim.thermo_next_from_variable();
    output += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // SIGINT/SIGTERM end a minimisation after the iteration, every rank alike (the last checkpoint is kept).
    if (signals::installed() && world.any(signals::pending() != 0)) {
      const int sig = signals::pending();
      throw RunError(fmt::format(
          "interrupted by {} during minimize after step {} ({}:{}); the last checkpoint "
          "written (if any) is kept",
          sig ? signals::name(sig) : "a signal on another rank", sim.state.step, c.pos.file, c.pos.line));
    }
  };
  MinimizeForces forces(sim);
  sim.backend_controls.balance = LoadBalance{};  // as in LAMMPS, fix balance does not act during minimisation
  sim.sort_atoms_as_lammps();                    // LAMMPS's Min::setup sorts its atoms
  const int64_t first = sim.state.step;
  const MinStats st = [&] {
    try {
      return minimize(sim.state, forces, sim.tables(), sim.neighbor, ms, box_relax, world, each);
    } catch (const InputError& e) {
      // Found only by iterating (a variable dividing by zero at iteration 5): a failed run, as for `run`.
      if (sim.state.step == first) throw;
      throw RunError(e.what());
    }
  }();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  const double cpu_seconds = process_cpu_seconds() - cpu_start;
  sim.totals.sample_time.resize(nsamples);
  sim.totals.sample_etotal.resize(nsamples);
  sim.totals.have_initial = saved.have_initial;
  sim.totals.initial_energy = saved.initial_energy;
  sim.totals.final_energy = saved.final_energy;
  sim.last_stats = st.neighbors;

  const int64_t natoms = world.sum(static_cast<int64_t>(sim.state.atoms.size()));
  sim.log.line(fmt::format("Loop time of {:.6g} on {} procs for {} steps with {} atoms\n", seconds,
                           world.size(), sim.state.step - start_step, natoms));
  sim.log.line(cpu_use_line(world, cpu_seconds, seconds));
  sim.log.line("Minimization stats:");
  sim.log.line("  Stopping criterion = " + st.stop);
  sim.log.line("  Energy initial, next-to-last, final = ");
  sim.log.line(fmt::format("    {:18.15g} {:18.15g} {:18.15g}", st.e_initial, st.e_next_to_last, st.e_final));
  // LAMMPS's {:.8} keeps trailing zeros (alpha 1 prints as 1.0000000).
  sim.log.line(
      fmt::format("  Force two-norm initial, final = {:#.8g} {:#.8g}", st.fnorm2_initial, st.fnorm2_final));
  sim.log.line(fmt::format("  Force max component initial, final = {:#.8g} {:#.8g}", st.fnorminf_initial,
                           st.fnorminf_final));
  sim.log.line(fmt::format("  Final line search alpha, max atom move = {:#.8g} {:#.8g}", st.alpha_final,
                           st.alpha_final * st.fnorminf_final));
  sim.log.line(fmt::format("  Iterations, force evaluations = {} {}\n", st.iterations, st.evaluations));
  sim.log.line("MPI task timing breakdown:");
  sim.log.line("Section |  min time  |  avg time  |  max time  |%varavg| %total");
  sim.log.line("---------------------------------------------------------------");
  const PhaseTimes& pt = st.times;
  const double other = std::max(0.0, seconds - pt.pair - pt.neigh - pt.comm - output);
  auto row = [&](const char* name, double t) {
    sim.log.line(fmt::format("{:<8}| {:<10.5g} | {:<10.5g} | {:<10.5g} | {:5.1f} | {:5.2f}", name, t, t, t,
                             0.0, seconds > 0 ? 100.0 * t / seconds : 0.0));
  };
  row("Pair", pt.pair);
  row("Neigh", pt.neigh);
  row("Comm", pt.comm);
  row("Output", output);
  row("Modify", 0.0);
  sim.log.line(fmt::format("Other   |            | {:<10.5g} |            |       | {:5.2f}\n", other,
                           seconds > 0 ? 100.0 * other / seconds : 0.0));
  sim.log.line(fmt::format("Total # of neighbors = {}", st.neighbors.pairs));
  sim.log.line(
      fmt::format("Ave neighs/atom = {:.6f}", natoms > 0 ? double(st.neighbors.pairs) / natoms : 0.0));
  sim.log.line(fmt::format("Neighbor list builds = {}", std::max<int64_t>(0, st.neighbors.builds - 1)));
  sim.log.line(fmt::format("Dangerous builds = {}", st.neighbors.dangerous));
  sim.log.line("");
}

}  // namespace

WMD_COMMAND("min_style", cmd_min_style, kNoFlags)
WMD_COMMAND("min_modify", cmd_min_modify, kNoFlags)
WMD_COMMAND("minimize", cmd_minimize, kNoFlags)

}  // namespace wmd::md
