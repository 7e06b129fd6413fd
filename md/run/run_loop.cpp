// `run N`: velocity-Verlet (LAMMPS fix nve order) with thermo, dumps and LAMMPS's end-of-run summary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "base/units.hpp"
#include "md/run/progress.hpp"
#include "md/core/resources.hpp"
#include "md/run/signals.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {

void Simulation::cmd_run(const io::Command& c) {
  require_box(c);
  ++runs_started_;
  if (restart_pending()) {
    // Runs before the checkpoint's are skipped (their results are in it); at its run, `run N` means N more
    // steps.
    if (run_precedes_checkpoint(c.pos)) return;
    load_checkpoint(c.pos);
  }
  io::ArgCursor a(c);
  int64_t n = a.integer("the number of steps", 0, 4000000000000000000LL);
  while (!a.done()) {
    const std::string key = a.choice("a run keyword", {"upto", "pre", "post"});
    if (key == "upto") {
      if (n < s_.step)
        a.fail("run upto " + std::to_string(n) + " is before the current step " + std::to_string(s_.step));
      n -= s_.step;
    } else {
      a.yes_no(key);
    }
  }
  if (!eam_ || !eam_->complete())
    a.fail("run needs a complete pair_style and pair_coeff set for every atom type");
  for (int t = 1; t <= s_.ntypes; ++t) {
    if (s_.mass[t] <= 0.0) a.fail("atom type " + std::to_string(t) + " has no mass");
  }
  if (natoms() == 0) a.fail("run needs atoms (create_atoms or read_data)");
  if (comm_.max(s_.atoms.max_id()) > 2147483647LL) a.fail("atom ids above 2147483647 are not supported");
  // Ghosts come from face neighbours only (one hop per direction), so every sub-domain must be at least the
  // neighbour cutoff thick wherever the grid splits the box.
  const double cutneigh = tables().cutmax + neighbor_.skin;
  for (int d = 0; d < 3; ++d) {
    if (decomp_.grid()[d] == 1 || decomp_.min_width(s_.box, d) >= cutneigh) continue;
    int fit[3];
    for (int e = 0; e < 3; ++e) fit[e] = std::max(1, static_cast<int>(s_.box.prd(e) / cutneigh));
    a.fail(fmt::format(
        "the {} MPI ranks split the box {} along {} into sub-domains {:.4g} Å thick, thinner "
        "than the neighbour cutoff {:.4g} Å (pair cutoff + skin): run on fewer MPI ranks (at most "
        "{}x{}x{} sub-domains fit this box) or set cluster.grid",
        comm_.size(), decomp_.grid_text(), "xyz"[d], decomp_.min_width(s_.box, d), cutneigh, fit[0], fit[1],
        fit[2]));
  }
  if (dry_run_) {
    backend_->validate(s_, tables(), neighbor_);
    if (run_hook_) run_hook_(s_, tables(), neighbor_);
    return;
  }
  run_steps(n);
}

void Simulation::apply_load_balance() {
  LoadBalance lb;
  for (const auto& f : fixes_)
    if (const LoadBalance* b = f->load_balance()) lb = *b;
  backend_->set_load_balance(lb);
}

bool Simulation::eatom_needed(int64_t step) const {
  for (const auto& d : dumps_) {
    if (step % d.every != 0) continue;
    for (const auto& col : d.columns) {
      if (col.rfind("c_", 0) != 0) continue;
      for (const auto& cp : computes_) {
        if ("c_" + cp.id == col && cp.style == "pe/atom") return true;
      }
    }
  }
  return false;
}

bool Simulation::tally_needed(int64_t step, int64_t end, bool progress) const {
  if (step >= end || (thermo_every_ > 0 && step % thermo_every_ == 0) || (progress && step % 10 == 0))
    return true;
  // A cascade may stop the run at any step, which then prints thermo.
  if (cascade_stop_time_ > 0.0) return true;
  for (const auto& d : dumps_)
    if (step % d.every == 0) return true;
  for (const auto& h : h5md_)
    if (h.every > 0 && step % h.every == 0) return true;
  for (const auto& f : fixes_)
    if (f->reads_energy()) return true;
  return false;
}

FixContext Simulation::fix_context() {
  FixContext c{s_, comm_};
  c.force = &backend_->result();
  c.run_begin = run_start_step_;
  c.run_end = run_end_step_;
  return c;
}

void Simulation::check_finite() const {
  const Atoms& at = s_.atoms;
  for (size_t i = 0; i < at.size(); ++i) {
    if (!std::isfinite(at.fx[i] + at.fy[i] + at.fz[i] + at.vx[i] + at.vy[i] + at.vz[i])) {
      throw RunError("atom " + std::to_string(at.id[i]) + " has a non-finite force or velocity at step " +
                     std::to_string(s_.step));
    }
  }
}

std::vector<std::string> Simulation::thermo_keywords() const {
  if (thermo_custom_) return thermo_custom_keys_;
  return {"step", "temp", "epair", "emol", "etotal", "press"};
}

void Simulation::thermo_output(bool header) {
  const auto keys = thermo_keywords();
  ThermoContext ctx{&s_,
                    &backend_->result(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - run_clock_).count(),
                    run_start_step_,
                    thermo_norm_,
                    &comm_};
  std::vector<double> values;
  std::vector<std::string> headers;
  std::vector<bool> ints;
  for (const auto& k : keys) {
    double v = 0.0;
    if (k.rfind("v_", 0) == 0) {
      if (!vars_) throw RunError("thermo keyword " + k + " needs variables");
      v = vars_->value(k.substr(2), SourcePos{"thermo_style", 0});
      headers.push_back(k);
      ints.push_back(false);
    } else if (cascade_thermo(k, v)) {
      headers.push_back(k == "vacancies" ? "Vacancies" : k == "interstitials" ? "Interstitials" : "Clusters");
      ints.push_back(true);
    } else if (k.rfind("f_", 0) == 0) {
      for (const auto& f : fixes_) {
        if ("f_" + f->id() == k && !f->scalar(v))
          throw RunError("fix " + f->id() + " has no scalar for thermo");
      }
      headers.push_back(k);
      ints.push_back(false);
    } else {
      thermo_value(k, ctx, v);
      headers.push_back(thermo_custom_ ? thermo_header(k)
                                       : (k == "epair"  ? "E_pair"
                                          : k == "emol" ? "E_mol"
                                                        : thermo_header(k)));
      ints.push_back(thermo_is_integer(k));
    }
    values.push_back(v);
  }
  if (header) {
    thermo_format_.set_columns(headers, ints);
    log_.line(thermo_format_.header());
    if (csv_) csv_->columns(keys);
  }
  log_.line(thermo_format_.row(values));
  if (csv_) csv_->row(values);
  double etotal = 0.0;
  ThermoContext raw = ctx;
  raw.normalise = false;
  thermo_value("etotal", raw, etotal);
  totals_.sample_time.push_back(s_.time);
  totals_.sample_etotal.push_back(etotal);
  if (!totals_.have_initial) {
    totals_.have_initial = true;
    totals_.initial_energy = etotal;
  }
  totals_.final_energy = etotal;
}

void Simulation::run_steps(int64_t nsteps) {
  log_.line("Setting up Verlet run ...");
  log_.line("  Unit style    : metal");
  log_.line("  Current step  : " + std::to_string(s_.step));
  log_.line(fmt::format("  Time step     : {}", s_.dt));
  run_start_step_ = s_.step;
  const int64_t end = s_.step + nsteps;
  run_end_step_ = end;
  const double time_start = s_.time;
  apply_load_balance();
  backend_->setup(s_, tables(), neighbor_, eatom_needed(s_.step));
  for (const auto& note : backend_->setup_notes()) log_.line(note);
  forces_current_ = true;
  {
    FixContext fc = fix_context();
    for (auto& f : fixes_) f->setup(fc);
  }
  if (!restart_forces_.empty()) {
    // A restart continues with what the interrupted run would have used in its next step.
    Atoms& at = s_.atoms;
    for (size_t i = 0; i < at.size(); ++i) {
      const auto it = restart_forces_.find(at.id[i]);
      if (it != restart_forces_.end())
        at.fx[i] = it->second[0], at.fy[i] = it->second[1], at.fz[i] = it->second[2];
    }
    s_.dt = restart_dt_;
    restart_forces_.clear();
  }
  const PhaseTimes setup_times = backend_->phase_times();
  check_finite();
  const double mem = current_rss_mb();
  log_.line(fmt::format("Per MPI rank memory allocation (min/avg/max) = {:.4g} | {:.4g} | {:.4g} Mbytes",
                        comm_.min(mem), comm_.sum(mem) / comm_.size(), comm_.max(mem)));
  run_clock_ = std::chrono::steady_clock::now();
  if (defects_) cascade_end_of_step(true);
  thermo_output(true);
  write_dumps(false);
  open_trajectories();
  write_trajectories(false);
  const Comm* comm = &comm_;
  ProgressLine progress(!comm || comm->root(), s_.step, end);
  int show_progress =
      progress.active();  // rank 0's terminal decides for all, so the sums below stay collective
  if (comm) comm->broadcast(&show_progress, 1);
  double modify = 0.0, output = 0.0;
  Comm::PendingAny signal_vote;
  // Completes a vote still in flight when the loop ends early (an error), so no request outlives the run.
  struct FinishVote {
    const Comm& comm;
    Comm::PendingAny& vote;
    ~FinishVote() { comm.any_finish(vote); }
  } finish_vote{comm_, signal_vote};
  const auto loop_start = std::chrono::steady_clock::now();
  const double waited_before = comm_.waited();
  const CpuTicks cpu_before = cpu_ticks();
  int64_t done = 0;
  while (s_.step < end && !(cascade_stop_time_ > 0.0 && s_.time >= cascade_stop_time_ * (1.0 - 1e-12))) {
    ++done;
    ++s_.step;
    s_.time += s_.dt;
    auto t0 = std::chrono::steady_clock::now();
    FixContext fc = fix_context();
    for (auto& f : fixes_) f->initial_integrate(fc);
    modify += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    backend_->compute(s_, eatom_needed(s_.step), tally_needed(s_.step, end, show_progress));
    t0 = std::chrono::steady_clock::now();
    for (auto& f : fixes_) f->post_force(fc);
    for (auto& f : fixes_) f->final_integrate(fc);
    for (auto& f : fixes_) f->end_of_step(fc);
    check_finite();
    if (defects_) cascade_end_of_step(false);  // Wigner–Seitz sample when due
    modify += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t0 = std::chrono::steady_clock::now();
    const bool last =
        s_.step == end || (cascade_stop_time_ > 0.0 && s_.time >= cascade_stop_time_ * (1.0 - 1e-12));
    if ((thermo_every_ > 0 && s_.step % thermo_every_ == 0) || last) {
      progress.clear();
      thermo_output(false);
    }
    write_dumps(false);
    write_trajectories(false);
    if (settings_.checkpoint_every > 0 && s_.step % settings_.checkpoint_every == 0) write_checkpoint();
    output += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (signals::installed()) {
      // One agreed decision per step, so every rank stops after the same step. The agreement on the flags
      // seen at the end of a step completes at the end of the next (the last step waits for it), so no
      // rank stops to wait for the others here: a signal ends the run one step later.
      const int sig = signals::pending();
      bool stop = comm->any_finish(signal_vote);
      if (last)
        stop = comm->any(stop || sig != 0);
      else if (!stop)
        comm->any_start(sig != 0, signal_vote);
      if (stop) {
        progress.clear();
        if (last_checkpoint_step_ != s_.step) write_checkpoint();
        const std::string path =
            (settings_.output_dir.empty() ? std::string(".") : settings_.output_dir) + "/checkpoint.h5";
        throw RunError(
            fmt::format("interrupted by {} after step {}; checkpoint written to {} (continue with "
                        "--restart {})",
                        sig ? signals::name(sig) : "a signal on another rank", s_.step, path, path));
      }
    }
    if (show_progress && s_.step % 10 == 0) {
      ThermoContext ctx{&s_, &backend_->result(), 0.0, run_start_step_, false};
      double temp = 0.0, etotal = 0.0;
      thermo_value("temp", ctx, temp);
      thermo_value("etotal", ctx, etotal);
      progress.update(s_.step, temp, etotal);
    }
  }
  progress.clear();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  const CpuTicks cpu_after = cpu_ticks();
  const double steal = steal_share(cpu_before, cpu_after);  // < 0: unknown
  CpuTicks& lc = totals_.loop_cpu;
  lc.known = lc.known && steal >= 0.0;
  if (steal >= 0.0)
    lc.total += cpu_after.total - cpu_before.total, lc.steal += cpu_after.steal - cpu_before.steal;
  nsteps = done;
  if (cascade_stop_time_ > 0.0 && s_.time >= cascade_stop_time_ * (1.0 - 1e-12)) cascade_stop_time_ = -1.0;
  if (defects_) finish_cascade_report();
  totals_.steps += nsteps;
  totals_.loop_seconds += seconds;
  totals_.simulated_ps += s_.time - time_start;  // accumulated step by step (dt/reset changes dt)
  last_stats_ = backend_->neighbor_stats();
  // LAMMPS's summary: rank 0's loop time; phases and counts as min/avg/max over ranks.
  PhaseTimes pt = backend_->phase_times();
  pt.pair -= setup_times.pair, pt.neigh -= setup_times.neigh, pt.comm -= setup_times.comm;
  totals_.phases.pair += pt.pair, totals_.phases.neigh += pt.neigh, totals_.phases.comm += pt.comm;
  const double waited = comm_.waited() - waited_before;
  totals_.comm_wait += waited;
  const int nprocs = comm_.size();
  const int64_t natoms_all = natoms();
  const double natoms = static_cast<double>(natoms_all);
  log_.line(fmt::format("Loop time of {:.6g} on {} procs for {} steps with {} atoms\n", seconds, nprocs,
                        nsteps, natoms_all));
  const double tps = seconds > 0 ? nsteps / seconds : 0.0;
  const double ns_day = tps * s_.dt * 86400.0 / 1000.0;
  log_.line(fmt::format("Performance: {:.3f} ns/day, {:.3f} hours/ns, {:.3f} timesteps/s", ns_day,
                        ns_day > 0 ? 24.0 / ns_day : 0.0, tps));
  log_.line(fmt::format("100.0% CPU use with {} MPI tasks x 1 OpenMP threads\n", nprocs));
  log_.line("MPI task timing breakdown:");
  log_.line("Section |  min time  |  avg time  |  max time  |%varavg| %total");
  log_.line("---------------------------------------------------------------");
  const double other = std::max(0.0, seconds - pt.pair - pt.neigh - pt.comm - output - modify);
  auto row = [&](const char* name, double t) {
    const double mn = comm_.min(t), avg = comm_.sum(t) / nprocs, mx = comm_.max(t);
    const double var = comm_.sum((t - avg) * (t - avg)) / nprocs;
    log_.line(fmt::format("{:<8}| {:<10.5g} | {:<10.5g} | {:<10.5g} | {:5.1f} | {:5.2f}", name, mn, avg, mx,
                          avg > 0 ? 100.0 * std::sqrt(var) / avg : 0.0,
                          seconds > 0 ? 100.0 * avg / seconds : 0.0));
  };
  row("Pair", pt.pair);
  row("Neigh", pt.neigh);
  row("Comm", pt.comm);
  row("Output", output);
  row("Modify", modify);
  const double other_avg = comm_.sum(other) / nprocs;
  log_.line(fmt::format("Other   |            | {:<10.5g} |            |       | {:5.2f}\n", other_avg,
                        seconds > 0 ? 100.0 * other_avg / seconds : 0.0));
  auto stat = [&](const char* name, double v) {
    const double avg = comm_.sum(v) / nprocs;
    log_.line(fmt::format("{}:{:>15} ave {:>11.6g} max {:>11.6g} min", name, fmt::format("{:#.6g}", avg),
                          comm_.max(v), comm_.min(v)));
    // LAMMPS's 10-bin histogram of the ranks' values between min and max.
    const std::vector<double> all = comm_.allgather(std::vector<double>{v});
    const double lo = *std::min_element(all.begin(), all.end()),
                 hi = *std::max_element(all.begin(), all.end());
    int bins[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (double x : all) ++bins[hi > lo ? std::min(9, static_cast<int>((x - lo) / ((hi - lo) / 10.0))) : 0];
    log_.line(fmt::format("Histogram: {}", fmt::join(bins, bins + 10, " ")));
  };
  if (nprocs > 1) {
    // The part of Comm spent blocked on other ranks: what a rank that finished its share early loses.
    log_.line(
        fmt::format("Comm wait: {:#.6g} ave {:.6g} max {:.6g} min seconds blocked on other ranks' messages\n",
                    comm_.sum(waited) / nprocs, comm_.max(waited), comm_.min(waited)));
  }
  if (comm_.min(steal) >= 0.0) {
    // On a shared virtual machine the hypervisor may stop a CPU for milliseconds; ranks that wait for each
    // other lose the stops of every rank, a single rank only its own (docs/performance.md).
    log_.line(
        fmt::format("Host steal: {:.3g} ave {:.3g} max {:.3g} min % of the ranks' CPU time in the loop, "
                    "given by the hypervisor to other guests (/proc/stat)\n",
                    100.0 * comm_.sum(steal) / nprocs, 100.0 * comm_.max(steal), 100.0 * comm_.min(steal)));
  }
  stat("Nlocal", static_cast<double>(s_.atoms.size()));
  stat("Nghost", static_cast<double>(last_stats_.ghosts));
  stat("Neighs", static_cast<double>(last_stats_.pairs));
  const int64_t pairs = comm_.sum(last_stats_.pairs);
  log_.line("");
  log_.line(fmt::format("Total # of neighbors = {}", pairs));
  log_.line(fmt::format("Ave neighs/atom = {:.6f}", natoms > 0 ? pairs / natoms : 0.0));
  log_.line(fmt::format("Neighbor list builds = {}", last_stats_.builds - 1));
  log_.line(fmt::format("Dangerous builds = {}", last_stats_.dangerous));
  if (last_stats_.balances > 0)
    log_.line(fmt::format("Sub-domain rebalancing (fix balance) = {}, imbalance factor now {:.6g}",
                          last_stats_.balances, last_stats_.imbalance));
  log_.line("");
}

}  // namespace wmd::md
