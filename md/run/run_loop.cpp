// The run loop: velocity-Verlet steps (LAMMPS's fix nve order) with the fixes' hooks around the backend's
// forces, the outputs due at each step, and interruption by signal with a checkpoint.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "base/non_finite.hpp"
#include "base/units.hpp"
#include "md/core/resources.hpp"
#include "md/run/cpu_use.hpp"
#include "md/run/progress.hpp"
#include "md/run/signals.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {

void Simulation::validate_run() {
  backend->validate(state, tables(), neighbor);
  if (run_hook_) run_hook_(state, tables(), neighbor);
}

void Simulation::sort_atoms_as_lammps() {
  sort_in_lammps_order(comm, state.box, state.atoms, atom_sort, state.step, tables().cutmax + neighbor.skin);
}

void Simulation::apply_load_balance() {
  LoadBalance lb;
  for (const auto& f : fixes)
    if (const LoadBalance* b = f->load_balance()) lb = *b;
  backend_controls.balance = lb;
}

bool Simulation::eatom_needed(int64_t step) const {
  // A per-atom energy compute may be read by thermo (through compute reduce or a variable) on its steps.
  const bool thermo_step = step == run_start_step || step == run_end_step || thermo_due(step);
  bool sampled = thermo_step;  // fix ave/time and fix print invoke computes on their own steps
  for (const auto& f : fixes) sampled = sampled || f->samples_at(step);
  if (sampled)
    for (const auto& c : computes)
      if (c->needs_eatom()) return true;
  for (const auto& d : dumps) {
    if (!dump_due(d, step)) continue;
    for (const auto& col : d.columns) {
      if (col.rfind("v_", 0) == 0)  // an atom-style variable may read any per-atom compute
        for (const auto& c : computes)
          if (c->needs_eatom()) return true;
      if (col.rfind("c_", 0) != 0) continue;
      const Compute* cp = find_compute(col.substr(2));
      if (cp && cp->needs_eatom()) return true;
    }
  }
  return false;
}

bool Simulation::tally_needed(int64_t step, int64_t end, bool progress) const {
  if (step >= end || thermo_due(step) || (progress && step % 10 == 0)) return true;
  // A cascade may stop the run at any step, which then prints thermo.
  if (cascade.stop_time > 0.0) return true;
  for (const auto& d : dumps)
    if (dump_due(d, step)) return true;
  for (const auto& h : h5md)
    if (h.every > 0 && step % h.every == 0) return true;
  for (const auto& f : fixes)
    if (f->reads_energy_at(step)) return true;
  return false;
}

FixContext Simulation::fix_context() {
  FixContext c{state, comm};
  c.force = &backend->result();
  c.styles = this;
  c.tables = &tables();
  c.run_begin = ramp_begin_;
  c.run_end = ramp_end_;
  c.timeout = &timeout_expired;
  return c;
}

void Simulation::check_finite() const {
  const Atoms& at = state.atoms;
  // Every step: one branch-free pass per column; the atom is looked for only when one is found.
  bool bad = false;
  for (const std::vector<double>* c : {&at.fx, &at.fy, &at.fz, &at.vx, &at.vy, &at.vz})
    bad = any_non_finite(c->data(), at.size()) || bad;
  if (!bad) return;
  for (size_t i = 0; i < at.size(); ++i) {
    if (!std::isfinite(at.fx[i]) || !std::isfinite(at.fy[i]) || !std::isfinite(at.fz[i]) ||
        !std::isfinite(at.vx[i]) || !std::isfinite(at.vy[i]) || !std::isfinite(at.vz[i])) {
      throw RunError("atom " + std::to_string(at.id[i]) + " has a non-finite force or velocity at step " +
                     std::to_string(state.step));
    }
  }
}

void Simulation::verlet_step(int64_t end, bool show_progress, double& modify_seconds) {
  ++state.step;
  state.time += state.dt;
  auto t0 = std::chrono::steady_clock::now();
  FixContext fc = fix_context();
  for (auto& f : fixes) f->prematch_region();  // moving regions: this step's displacement
  const Comm::Tally before_fixes = comm.tally();
  for (auto& f : fixes) f->initial_integrate(fc);
  for (auto& f : fixes) f->post_integrate(fc);
  bool reneighbour = false;  // fix deposit: its insertion steps re-neighbour, as in LAMMPS
  for (auto& f : fixes) reneighbour = f->pre_exchange(fc) || reneighbour;
  if (reneighbour) backend->force_rebuild();
  const Comm::Tally before_forces = comm.tally();
  modify_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int64_t builds_before = backend->neighbor_stats().builds;
  backend->compute(state, eatom_needed(state.step), tally_needed(state.step, end, show_progress));
  t0 = std::chrono::steady_clock::now();
  // LAMMPS sorts its atoms at the first re-neighbouring step past the sort interval, before that step's
  // forces: the fixes after the forces (fix langevin's noise) already see the new order.
  if (atom_sort.every > 0 && backend->neighbor_stats().builds != builds_before &&
      state.step >= atom_sort.next_step)
    sort_atoms_as_lammps();
  const Comm::Tally after_forces = comm.tally();
  for (auto& f : fixes) f->post_force(fc);
  for (auto& f : fixes) f->final_integrate(fc);
  for (auto& f : fixes) f->end_of_step(fc);
  // The fixes' global sums and extrema (the backend's own are priced inside it): fabric reductions on the
  // mesh.
  const Comm::Tally after_fixes = comm.tally();
  backend->charge(MeshWork{static_cast<int>(before_forces.reductions - before_fixes.reductions +
                                            after_fixes.reductions - after_forces.reductions),
                           static_cast<int>(before_forces.values - before_fixes.values + after_fixes.values -
                                            after_forces.values)});
  check_finite();
  if (cascade.defects) cascade_end_of_step(false);  // Wigner–Seitz sample when due
  modify_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Simulation::run_steps(int64_t nsteps) {
  // LAMMPS's `run … pre no` after a first run or minimisation: no init and no set-up (Run::command calls
  // only output->setup), so fixes and computes keep their state, dof and timestep, and the step goes on with
  // the forces the last one left; nor does it print the set-up's lines. The backend still builds its lists
  // here; the forces and the timestep of before are put back after it, as for a checkpoint continuation.
  const bool full_setup = run_pre || !updated;
  const bool summary = run_post;  // `post no`: LAMMPS's Finish prints the loop time alone
  run_pre = run_post = true;
  if (full_setup) {
    log.line("Setting up Verlet run ...");
    log.line("  Unit style    : metal");
    log.line("  Current step  : " + std::to_string(state.step));
    log.line(fmt::format("  Time step     : {}", state.dt));
  }
  run_start_step = state.step;
  if (!full_setup && restart_forces_.empty()) {
    const Atoms& at = state.atoms;
    for (size_t i = 0; i < at.size(); ++i) restart_forces_[at.id[i]] = {at.fx[i], at.fy[i], at.fz[i]};
    restart_dt_ = state.dt;
  }
  updated = true;
  state.time_lag_from = -1;  // LAMMPS's Integrate::init: atimestep = ntimestep, the lag dropped
  const int64_t end = state.step + nsteps;
  run_end_step = end;
  ramp_begin_ = ramp_start >= 0 ? ramp_start : run_start_step;
  ramp_end_ = ramp_stop >= 0 ? ramp_stop : run_end_step;
  ramp_start = ramp_stop = -1;
  run_start_atoms = natoms();
  const double time_start = state.time;
  struct Running {  // references invoke computes while the run lasts (LAMMPS's in-run rule)
    bool& flag;
    ~Running() { flag = false; }
  } running_guard{running};
  running = true;
  if (full_setup) {
    const ComputeContext cc = compute_context();
    for (auto& cp : computes) {  // LAMMPS's init
      cp->invoked_scalar = cp->invoked_vector = cp->invoked_array = cp->invoked_peratom = cp->invoked_local =
          -1;
      cp->init(cc);
    }
  }
  if (full_setup) {
    // LAMMPS's init: the box's deformation rates are the fixes' to set (fix deform), none otherwise.
    Box& b = state.box;
    for (int d = 0; d < 6; ++d) b.h_rate[d] = 0.0;  // the tilts' rates too
    for (int d = 0; d < 3; ++d) b.h_ratelo[d] = 0.0;
    b.vremap_group = 0;
    FixContext fc = fix_context();
    for (auto& f : fixes) f->init(fc);
  }
  apply_load_balance();
  // A run continued from a checkpoint goes on as the interrupted run did: no set-up sort, the atoms keep
  // the order and sort schedule the checkpoint recorded (fix langevin's noise follows that order).
  if (restart_forces_.empty()) sort_atoms_as_lammps();
  backend->setup(state, tables(), neighbor, eatom_needed(state.step));
  for (const auto& note : backend->setup_notes()) log.line(note);
  forces_current = true;
  if (natoms() != run_start_atoms) {
    // Atoms lost through a fixed face at the set-up's re-neighbouring (thermo_modify lost warn|ignore):
    // LAMMPS counts the temperature's degrees of freedom after it (compute setup follows the exchange).
    run_start_atoms = natoms();
    const ComputeContext cc = compute_context();
    for (auto& cp : computes)
      if (cp->is_temperature()) cp->init(cc);
  }
  if (full_setup) {
    FixContext fc = fix_context();
    fc.continuing = continuing_run_;
    for (auto& f : fixes) f->prematch_region();
    for (auto& f : fixes) f->setup(fc);
  }
  continuing_run_ = false;
  if (!restart_forces_.empty()) {
    // A restart continues with what the interrupted run would have used in its next step.
    Atoms& at = state.atoms;
    for (size_t i = 0; i < at.size(); ++i) {
      const auto it = restart_forces_.find(at.id[i]);
      if (it != restart_forces_.end())
        at.fx[i] = it->second[0], at.fy[i] = it->second[1], at.fz[i] = it->second[2];
    }
    state.dt = restart_dt_;
    restart_forces_.clear();
  }
  const PhaseTimes setup_times = backend->phase_times();
  check_finite();
  const double mem = current_rss_mb();
  if (full_setup)
    log.line(fmt::format("Per MPI rank memory allocation (min/avg/max) = {:.4g} | {:.4g} | {:.4g} Mbytes",
                         comm.min(mem), comm.sum_in_rank_order(mem) / comm.size(), comm.max(mem)));
  run_clock = std::chrono::steady_clock::now();
  if (cascade.defects) cascade_end_of_step(true);
  thermo_output(true);
  write_dumps(true);
  schedule_restarts();
  // LAMMPS's Output::setup: thermo's variable gives the step of the next row (not capped at the run's last
  // step here, unlike after a row: a first value past it prints no row at the end).
  if (!thermo.every_var.empty()) thermo.next = thermo_next_from_variable();
  open_trajectories();
  write_trajectories(false);
  ProgressLine progress(comm.root(), state.step, end);
  int show_progress = progress.active();  // rank 0's terminal decides for all, so the sums stay collective
  comm.broadcast(&show_progress, 1);
  double modify = 0.0, output = 0.0;
  Comm::PendingAny signal_vote;
  // Completes a vote still in flight when the loop ends early (an error), so no request outlives the run.
  struct FinishVote {
    const Comm& comm;
    Comm::PendingAny& vote;
    ~FinishVote() { comm.any_finish(vote); }
  } finish_vote{comm, signal_vote};
  const auto loop_start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  const double waited_before = comm.waited();
  const CpuTicks cpu_before = cpu_ticks();
  auto cascade_over = [&] {
    return cascade.stop_time > 0.0 && state.time >= cascade.stop_time * (1.0 - 1e-12);
  };
  int64_t done = 0;
  // A halted run (fix halt's timeout) stops after the step that set it, as LAMMPS's check_timeout at the top
  // of its loop: that step's outputs are written only when they were due anyway.
  while (state.step < end && !cascade_over() && !timeout_expired) {
    // LAMMPS's check_timeout at the top of each step: rank 0's clock decides for all.
    if (timeout_limit >= 0.0 && done % timeout_every == 0) {
      double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - timeout_start).count();
      comm.broadcast(&elapsed, 1);
      if (elapsed > timeout_limit) {
        timeout_expired = true;
        log.line("WARNING: Wall time limit reached");
        break;
      }
    }
    ++done;
    verlet_step(end, show_progress, modify);
    auto t0 = std::chrono::steady_clock::now();
    const bool last = state.step == end || cascade_over();
    // With thermo v_name the run's last step has a row only when the variable's step was capped to it
    // (LAMMPS's next_thermo); a cascade's stop time prints one either way.
    const bool var_thermo = !thermo.every_var.empty();
    if (var_thermo ? state.step == thermo.next || cascade_over() : thermo_due(state.step) || last) {
      progress.clear();
      const Comm::Tally before = comm.tally();
      thermo_output(false);  // its sums (temperature, pressure, computes) are fabric reductions on the mesh
      const Comm::Tally after = comm.tally();
      backend->charge(MeshWork{static_cast<int>(after.reductions - before.reductions),
                               static_cast<int>(after.values - before.values)});
    }
    write_dumps(false);
    write_trajectories(false);
    write_restarts_due();
    if (var_thermo && state.step == thermo.next) thermo.next = std::min(thermo_next_from_variable(), end);
    if (settings.checkpoint_every > 0 && state.step % settings.checkpoint_every == 0) write_checkpoint();
    output += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (signals::installed()) {
      // One agreed decision per step, so every rank stops after the same step. The agreement on the flags
      // seen at the end of a step completes at the end of the next (the last step waits for it), so no
      // rank stops to wait for the others here: a signal ends the run one step later.
      const int sig = signals::pending();
      bool stop = comm.any_finish(signal_vote);
      if (last)
        stop = comm.any(stop || sig != 0);
      else if (!stop)
        comm.any_start(sig != 0, signal_vote);
      if (stop) {
        progress.clear();
        if (last_checkpoint_step_ != state.step) write_checkpoint();
        const std::string path =
            (settings.output_dir.empty() ? std::string(".") : settings.output_dir) + "/checkpoint.h5";
        throw RunError(
            fmt::format("interrupted by {} after step {}; checkpoint written to {} (continue with "
                        "--restart {})",
                        sig ? signals::name(sig) : "a signal on another rank", state.step, path, path));
      }
    }
    if (show_progress && state.step % 10 == 0) {
      ThermoContext ctx{&state, &backend->result(), 0.0, run_start_step, false};
      double temp = 0.0, etotal = 0.0;
      thermo_value("temp", ctx, temp);
      thermo_value("etotal", ctx, etotal);
      progress.update(state.step, temp, etotal);
    }
  }
  progress.clear();
  {
    FixContext fc = fix_context();
    for (auto& f : fixes) f->post_run(fc);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  const double cpu_seconds = process_cpu_seconds() - cpu_start;
  const CpuTicks cpu_after = cpu_ticks();
  const double steal = steal_share(cpu_before, cpu_after);  // < 0: unknown
  CpuTicks& lc = totals.loop_cpu;
  lc.known = lc.known && steal >= 0.0;
  if (steal >= 0.0)
    lc.total += cpu_after.total - cpu_before.total, lc.steal += cpu_after.steal - cpu_before.steal;
  if (cascade_over()) cascade.stop_time = -1.0;
  if (cascade.defects) finish_cascade_report();
  totals.steps += done;
  totals.loop_seconds += seconds;
  totals.simulated_ps += state.time - time_start;  // accumulated step by step (dt/reset changes dt)
  totals.comm_wait += comm.waited() - waited_before;
  last_stats = backend->neighbor_stats();
  PhaseTimes pt = backend->phase_times();
  pt.pair -= setup_times.pair, pt.neigh -= setup_times.neigh, pt.comm -= setup_times.comm;
  totals.phases.pair += pt.pair, totals.phases.neigh += pt.neigh, totals.phases.comm += pt.comm;
  if (summary)
    print_run_summary(done, seconds, cpu_seconds, pt, output, modify, comm.waited() - waited_before);
  else
    log.line(fmt::format("Loop time of {:.6g} on {} procs for {} steps with {} atoms\n", seconds, comm.size(),
                         done, natoms()));
}

void Simulation::print_run_summary(int64_t nsteps, double seconds, double cpu_seconds, const PhaseTimes& pt,
                                   double output, double modify, double waited) {
  // LAMMPS's summary: rank 0's loop time; phases and counts as min/avg/max over ranks.
  const int nprocs = comm.size();
  const int64_t natoms_all = natoms();
  const double n_atoms = static_cast<double>(natoms_all);
  log.line(fmt::format("Loop time of {:.6g} on {} procs for {} steps with {} atoms\n", seconds, nprocs,
                       nsteps, natoms_all));
  const double tps = seconds > 0 ? nsteps / seconds : 0.0;
  const double ns_day = tps * state.dt * 86400.0 / 1000.0;
  // LAMMPS's Finish prints the performance line only for a run that took steps.
  if (nsteps > 0)
    log.line(fmt::format("Performance: {:.3f} ns/day, {:.3f} hours/ns, {:.3f} timesteps/s", ns_day,
                         ns_day > 0 ? 24.0 / ns_day : 0.0, tps));
  log.line(cpu_use_line(comm, cpu_seconds, seconds));
  log.line("MPI task timing breakdown:");
  log.line("Section |  min time  |  avg time  |  max time  |%varavg| %total");
  log.line("---------------------------------------------------------------");
  const double other = std::max(0.0, seconds - pt.pair - pt.neigh - pt.comm - output - modify);
  // Timing statistics: per-rank seconds, not per-atom terms, so sums in rank order (as LAMMPS's Allreduce).
  auto row = [&](const char* name, double t) {
    const double mn = comm.min(t), avg = comm.sum_in_rank_order(t) / nprocs, mx = comm.max(t);
    const double var = comm.sum_in_rank_order((t - avg) * (t - avg)) / nprocs;
    log.line(fmt::format("{:<8}| {:<10.5g} | {:<10.5g} | {:<10.5g} | {:5.1f} | {:5.2f}", name, mn, avg, mx,
                         avg > 0 ? 100.0 * std::sqrt(var) / avg : 0.0,
                         seconds > 0 ? 100.0 * avg / seconds : 0.0));
  };
  row("Pair", pt.pair);
  row("Neigh", pt.neigh);
  row("Comm", pt.comm);
  row("Output", output);
  row("Modify", modify);
  const double other_avg = comm.sum_in_rank_order(other) / nprocs;
  log.line(fmt::format("Other   |            | {:<10.5g} |            |       | {:5.2f}\n", other_avg,
                       seconds > 0 ? 100.0 * other_avg / seconds : 0.0));
  auto stat = [&](const char* name, double v) {
    const double avg = comm.sum_in_rank_order(v) / nprocs;
    log.line(fmt::format("{}:{:>15} ave {:>11.6g} max {:>11.6g} min", name, fmt::format("{:#.6g}", avg),
                         comm.max(v), comm.min(v)));
    // LAMMPS's 10-bin histogram of the ranks' values between min and max.
    const std::vector<double> all = comm.allgather(std::vector<double>{v});
    const double lo = *std::min_element(all.begin(), all.end()),
                 hi = *std::max_element(all.begin(), all.end());
    int bins[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (double x : all) ++bins[hi > lo ? std::min(9, static_cast<int>((x - lo) / ((hi - lo) / 10.0))) : 0];
    log.line(fmt::format("Histogram: {}", fmt::join(bins, bins + 10, " ")));
  };
  if (nprocs > 1) {
    // The part of Comm spent blocked on other ranks: what a rank that finished its share early loses.
    log.line(
        fmt::format("Comm wait: {:#.6g} ave {:.6g} max {:.6g} min seconds blocked on other ranks' messages\n",
                    comm.sum_in_rank_order(waited) / nprocs, comm.max(waited), comm.min(waited)));
  }
  stat("Nlocal", static_cast<double>(state.atoms.size()));
  stat("Nghost", static_cast<double>(last_stats.ghosts));
  stat("Neighs", static_cast<double>(last_stats.pairs));
  const int64_t pairs = comm.sum(last_stats.pairs);
  log.line("");
  log.line(fmt::format("Total # of neighbors = {}", pairs));
  log.line(fmt::format("Ave neighs/atom = {:.6f}", n_atoms > 0 ? pairs / n_atoms : 0.0));
  log.line(fmt::format("Neighbor list builds = {}", last_stats.builds - 1));
  log.line(fmt::format("Dangerous builds = {}", last_stats.dangerous));
  if (last_stats.balances > 0)
    log.line(fmt::format("Sub-domain rebalancing (fix balance) = {}, imbalance factor now {:.6g}",
                         last_stats.balances, last_stats.imbalance));
  log.line("");
}

}  // namespace wmd::md
