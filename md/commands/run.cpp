// `run N [upto] [start S] [stop E] [pre yes|no] [post yes|no]`: checks that the system can run, then N
// velocity-Verlet steps (md/run/run_loop.cpp). With a restart, runs before the checkpoint's are skipped and
// at its run `run N` means N more steps.
#include <fmt/format.h>

#include <algorithm>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_run(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  if (sim.skip_or_load_restart(c.pos)) {
    sim.thermo_setup(true);  // a run the checkpoint continues after: thermo counts as set up at it
    return;
  }
  io::ArgCursor a(c);
  int64_t n = a.integer("the number of steps", 0, 4000000000000000000LL);
  bool upto = false;
  int64_t start = -1, stop = -1;
  while (!a.done()) {
    // `every` is expanded into segment runs by the script reader (io/script_control.cpp); pre and post
    // decide what LAMMPS prints and re-initialises, not the dynamics: wafermd always sets up in full.
    const std::string key = a.choice("a run keyword", {"upto", "start", "stop", "pre", "post"});
    if (key == "upto") {
      upto = true;
    } else if (key == "start" || key == "stop") {
      (key == "start" ? start : stop) = a.integer(key, 0, 4000000000000000000LL);
    } else {
      a.yes_no(key);
    }
  }
  if (upto) {
    if (n < sim.state.step)
      a.fail("run upto " + std::to_string(n) + " is before the current step " +
             std::to_string(sim.state.step));
    n -= sim.state.step;
  }
  // LAMMPS's checks (run.cpp): the ramp bounds must enclose the run (the dry run's step does not advance,
  // so only the real run knows).
  if (!sim.dry_run && start >= 0 && start > sim.state.step)
    a.fail("run start value is after the start of the run");
  if (!sim.dry_run && stop >= 0 && stop < sim.state.step + n)
    a.fail("run stop value is before the end of the run");
  if (!sim.potential_complete())
    a.fail("run needs a complete pair_style and pair_coeff set for every atom type");
  for (int t = 1; t <= sim.state.ntypes; ++t) {
    if (sim.state.mass[t] <= 0.0) a.fail("atom type " + std::to_string(t) + " has no mass");
  }
  if (sim.natoms() == 0) a.fail("run needs atoms (create_atoms or read_data)");
  // LAMMPS's Thermo::init: a fix's global value is current only every global_freq steps (fix ave/time).
  for (const std::string& k : sim.thermo_keywords()) {
    if (k.rfind("f_", 0) != 0) continue;
    const std::string id =
        k.substr(2, k.find('[') == std::string::npos ? std::string::npos : k.find('[') - 2);
    const Fix* f = sim.find_fix(id);
    if (f && f->global_freq() > 1 && sim.thermo.every % f->global_freq() != 0)
      a.fail(
          fmt::format("thermo every {} steps and fix {} (computed every {} steps) are not computed at "
                      "compatible times (LAMMPS: \"Thermo and fix not computed at compatible times\")",
                      sim.thermo.every, id, f->global_freq()));
  }
  if (sim.comm.max(sim.state.atoms.max_id()) > 2147483647LL)
    a.fail("atom ids above 2147483647 are not supported");
  // Ghosts come from face neighbours only (one hop per direction), so every sub-domain must be at least the
  // neighbour cutoff thick wherever the grid splits the box.
  const double cutneigh = sim.tables().cutmax + sim.neighbor.skin;
  for (int d = 0; d < 3; ++d) {
    if (sim.decomp.grid()[d] == 1 || sim.decomp.min_width(sim.state.box, d) >= cutneigh) continue;
    int fit[3];
    for (int e = 0; e < 3; ++e) fit[e] = std::max(1, static_cast<int>(sim.state.box.prd(e) / cutneigh));
    a.fail(fmt::format(
        "the {} MPI ranks split the box {} along {} into sub-domains {:.4g} Å thick, thinner "
        "than the neighbour cutoff {:.4g} Å (pair cutoff + skin): run on fewer MPI ranks (at most "
        "{}x{}x{} sub-domains fit this box) or set cluster.grid",
        sim.comm.size(), sim.decomp.grid_text(), "xyz"[d], sim.decomp.min_width(sim.state.box, d), cutneigh,
        fit[0], fit[1], fit[2]));
  }
  sim.check_thermo_variables();
  if (sim.dry_run) {
    sim.validate_run();
    sim.thermo_setup();
    return;
  }
  sim.ramp_start = start, sim.ramp_stop = stop;
  sim.run_steps(n);
}

}  // namespace

WMD_COMMAND("run", cmd_run, kNoPhysics)

}  // namespace wmd::md
