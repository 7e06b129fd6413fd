// `min_style`, `min_modify`, `minimize` and `fix box/relax`: the LAMMPS minimisation commands, with
// LAMMPS's log (thermo every `thermo` iterations, then "Minimization stats" and the timing summary).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "md/core/resources.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {

void Simulation::cmd_min_style(const io::Command& c) {
  io::ArgCursor a(c);
  min_.style = a.choice("a min style (cg or fire)", {"cg", "fire"});
  a.finish();
}

void Simulation::cmd_min_modify(const io::Command& c) {
  io::ArgCursor a(c);
  if (a.done()) a.fail("min_modify needs keywords (dmax, line, norm, or FIRE parameters)");
  while (!a.done()) {
    const std::string key =
        a.choice("a min_modify keyword",
                 {"dmax", "line", "norm", "delaystep", "dtgrow", "dtshrink", "alpha0", "alphashrink", "tmax",
                  "tmin", "halfstepback", "initialdelay", "vdfmax", "integrator"});
    if (key == "dmax") {
      min_.dmax = a.positive("dmax (Å)");
    } else if (key == "line") {
      min_.line = a.choice("a line search", {"backtrack", "quadratic", "forcezero"});
    } else if (key == "norm") {
      min_.norm = a.choice("a norm", {"two", "max", "inf"});
    } else if (key == "delaystep") {
      min_.delaystep = a.integer("delaystep", 0, 2000000000);
    } else if (key == "dtgrow") {
      min_.dtgrow = a.positive("dtgrow");
      if (min_.dtgrow < 1.0) a.fail("dtgrow must be >= 1");
    } else if (key == "dtshrink") {
      min_.dtshrink = a.positive("dtshrink");
      if (min_.dtshrink > 1.0) a.fail("dtshrink must be <= 1");
    } else if (key == "alpha0") {
      min_.alpha0 = a.non_negative("alpha0");
      if (min_.alpha0 > 1.0) a.fail("alpha0 must be <= 1");
    } else if (key == "alphashrink") {
      min_.alphashrink = a.positive("alphashrink");
      if (min_.alphashrink > 1.0) a.fail("alphashrink must be <= 1");
    } else if (key == "tmax") {
      min_.tmax = a.positive("tmax");
    } else if (key == "tmin") {
      min_.tmin = a.positive("tmin");
    } else if (key == "halfstepback") {
      min_.halfstepback = a.yes_no("halfstepback");
    } else if (key == "initialdelay") {
      min_.initialdelay = a.yes_no("initialdelay");
    } else if (key == "vdfmax") {
      min_.vdfmax = a.integer("vdfmax", 0, 2000000000);
    } else {
      a.choice("a FIRE integrator (only eulerimplicit is supported)", {"eulerimplicit"});
    }
  }
}

// fix ID group box/relax iso|aniso P | x P [y P] [z P] [couple none] [vmax V] [nreset N] [dilate all]
void Simulation::cmd_fix_box_relax(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const std::string id = a.word("a fix ID");
  group_of(a, a.word("a group ID"));
  a.word("box/relax");
  BoxRelax br;
  br.active = true;
  bool have_target = false;
  double target = 0.0;
  auto set_target = [&](double p) {
    if (have_target && p != target)
      a.fail("fix box/relax: different target pressures per dimension are not supported");
    have_target = true;
    target = p;
  };
  if (a.done()) a.fail("fix box/relax needs iso, aniso or x/y/z with a target pressure (bar)");
  while (!a.done()) {
    const std::string key = a.choice("a box/relax keyword",
                                     {"iso", "aniso", "x", "y", "z", "couple", "vmax", "nreset", "dilate"});
    if (key == "iso" || key == "aniso") {
      set_target(a.real("the target pressure (bar)"));
      br.couple = key == "iso";
      for (int d = 0; d < 3; ++d) br.dim[d] = true;
    } else if (key == "x" || key == "y" || key == "z") {
      set_target(a.real("the target pressure (bar)"));
      br.dim[key[0] - 'x'] = true;
    } else if (key == "couple") {
      const std::string how = a.choice("a coupling", {"none", "xyz"});
      br.couple = how == "xyz";
    } else if (key == "vmax") {
      br.vmax = a.positive("vmax (fraction)");
    } else if (key == "nreset") {
      a.integer("nreset", 0, 2000000000);
    } else {
      a.choice("dilate", {"all"});
    }
  }
  if (!have_target) a.fail("fix box/relax needs a target pressure (iso, aniso, x, y or z)");
  for (int d = 0; d < 3; ++d) {
    if (br.dim[d] && !s_.box.periodic(d))
      a.fail("fix box/relax cannot change the non-periodic dimension " +
             std::string(1, static_cast<char>('x' + d)));
    br.target[d] = br.dim[d] ? target : 0.0;
  }
  if (br.couple && !(br.dim[0] && br.dim[1] && br.dim[2]))
    a.fail("fix box/relax couple xyz needs all three dimensions relaxed");
  box_relax_ = br;
  box_relax_id_ = id;
}

void Simulation::cmd_minimize(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  MinSettings ms = min_;
  ms.etol = a.non_negative("the energy tolerance");
  ms.ftol = a.non_negative("the force tolerance (eV/Å)");
  ms.maxiter = a.integer("the maximum number of iterations", 0, 2000000000);
  ms.maxeval = a.integer("the maximum number of force evaluations", 0, 2000000000);
  a.finish();
  if (ms.etol >= 1.0) a.fail("the energy tolerance must be < 1 (it is relative)");
  if (ms.style == "fire" && box_relax_.active)
    a.fail("min_style fire cannot relax the box (fix box/relax needs min_style cg), as in LAMMPS");
  if (!eam_ || !eam_->complete())
    a.fail("minimize needs a complete pair_style and pair_coeff set for every atom type");
  for (int t = 1; t <= s_.ntypes; ++t) {
    if (s_.mass[t] <= 0.0) a.fail("atom type " + std::to_string(t) + " has no mass");
  }
  if (natoms() == 0)
    a.fail("minimize needs atoms (create_atoms or read_data)");  // all ranks: one may hold none
  if (dry_run_) return;

  log_.line(fmt::format("Setting up {} style minimization ...", ms.style));
  log_.line("  Unit style    : metal");
  log_.line("  Current step  : " + std::to_string(s_.step));
  run_start_step_ = s_.step;
  // Thermo samples of a minimisation are not dynamics: keep them out of report.json's drift fit.
  const size_t nsamples = totals_.sample_time.size();
  const RunTotals saved = totals_;
  const Comm& world = comm_;
  const int64_t start_step = s_.step;
  const auto loop_start = std::chrono::steady_clock::now();
  run_clock_ = loop_start;
  double output = 0.0;
  auto each = [&](bool first, bool last) {
    forces_current_ = true;
    const auto t0 = std::chrono::steady_clock::now();
    if (first) {
      const double mem = current_rss_mb();
      log_.line(fmt::format("Per MPI rank memory allocation (min/avg/max) = {:.4g} | {:.4g} | {:.4g} Mbytes",
                            world.min(mem), world.sum(mem) / world.size(), world.max(mem)));
      thermo_output(true);
      return;
    }
    if (last || (thermo_every_ > 0 && s_.step % thermo_every_ == 0)) thermo_output(false);
    write_dumps(false);
    output += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  backend_->set_load_balance(LoadBalance{});  // as in LAMMPS, fix balance does not act during minimisation
  const MinStats st = minimize(s_, *backend_, tables(), neighbor_, ms, box_relax_, world, each);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  totals_.sample_time.resize(nsamples);
  totals_.sample_etotal.resize(nsamples);
  totals_.have_initial = saved.have_initial;
  totals_.initial_energy = saved.initial_energy;
  totals_.final_energy = saved.final_energy;
  last_stats_ = st.neighbors;

  const int64_t natoms = world.sum(static_cast<int64_t>(s_.atoms.size()));
  log_.line(fmt::format("Loop time of {:.6g} on {} procs for {} steps with {} atoms\n", seconds, world.size(),
                        s_.step - start_step, natoms));
  log_.line(fmt::format("100.0% CPU use with {} MPI tasks x 1 OpenMP threads\n", world.size()));
  log_.line("Minimization stats:");
  log_.line("  Stopping criterion = " + st.stop);
  log_.line("  Energy initial, next-to-last, final = ");
  log_.line(fmt::format("    {:18.15g} {:18.15g} {:18.15g}", st.e_initial, st.e_next_to_last, st.e_final));
  log_.line(
      fmt::format("  Force two-norm initial, final = {:.8g} {:.8g}", st.fnorm2_initial, st.fnorm2_final));
  log_.line(fmt::format("  Force max component initial, final = {:.8g} {:.8g}", st.fnorminf_initial,
                        st.fnorminf_final));
  log_.line(fmt::format("  Final line search alpha, max atom move = {:.8g} {:.8g}", st.alpha_final,
                        st.alpha_final * st.fnorminf_final));
  log_.line(fmt::format("  Iterations, force evaluations = {} {}\n", st.iterations, st.evaluations));
  log_.line("MPI task timing breakdown:");
  log_.line("Section |  min time  |  avg time  |  max time  |%varavg| %total");
  log_.line("---------------------------------------------------------------");
  const PhaseTimes& pt = st.times;
  const double other = std::max(0.0, seconds - pt.pair - pt.neigh - pt.comm - output);
  auto row = [&](const char* name, double t) {
    log_.line(fmt::format("{:<8}| {:<10.5g} | {:<10.5g} | {:<10.5g} | {:5.1f} | {:5.2f}", name, t, t, t, 0.0,
                          seconds > 0 ? 100.0 * t / seconds : 0.0));
  };
  row("Pair", pt.pair);
  row("Neigh", pt.neigh);
  row("Comm", pt.comm);
  row("Output", output);
  row("Modify", 0.0);
  log_.line(fmt::format("Other   |            | {:<10.5g} |            |       | {:5.2f}\n", other,
                        seconds > 0 ? 100.0 * other / seconds : 0.0));
  log_.line(fmt::format("Total # of neighbors = {}", st.neighbors.pairs));
  log_.line(fmt::format("Ave neighs/atom = {:.6f}", natoms > 0 ? double(st.neighbors.pairs) / natoms : 0.0));
  log_.line(fmt::format("Neighbor list builds = {}", std::max<int64_t>(0, st.neighbors.builds - 1)));
  log_.line(fmt::format("Dangerous builds = {}", st.neighbors.dangerous));
  log_.line("");
}

}  // namespace wmd::md
