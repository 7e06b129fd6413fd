// `run N [upto] [start S] [stop E] [pre yes|no] [post yes|no]`: checks that the system can run, then N
// velocity-Verlet steps (md/run/run_loop.cpp). With a restart, runs before the checkpoint's are skipped and
// at its run `run N` means N more steps.
#include <fmt/format.h>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_run(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  if (sim.timeout_expired) return;  // LAMMPS ignores run once fix halt stopped a run (timer->is_timeout)
  if (sim.skip_or_load_restart(c.pos)) {
    sim.thermo_setup(true);  // a run the checkpoint continues after: thermo counts as set up at it
    return;
  }
  io::ArgCursor a(c);
  int64_t n = a.integer("the number of steps", 0, 4000000000000000000LL);
  bool upto = false;
  int64_t start = -1, stop = -1;
  bool pre = true, post = true;
  while (!a.done()) {
    // `every` is expanded into segment runs by the script reader (io/script_control.cpp). `pre no` skips
    // the set-up after the first run as LAMMPS does (no fix or compute set-up: fix dt/reset keeps its
    // timestep, fix langevin draws nothing); `post no` prints the loop time alone, as LAMMPS's Finish.
    const std::string key = a.choice("a run keyword", {"upto", "start", "stop", "pre", "post"});
    if (key == "upto") {
      upto = true;
    } else if (key == "start" || key == "stop") {
      (key == "start" ? start : stop) = a.integer(key, 0, 4000000000000000000LL);
    } else if (key == "pre") {
      pre = a.yes_no(key);
    } else {
      post = a.yes_no(key);
    }
  }
  if (upto) {
    if (n < sim.state.step)
      a.fail("run upto " + std::to_string(n) + " is before the current step " +
             std::to_string(sim.state.step));
    n -= sim.state.step;
  }
  if (n > io::kMaxRunSteps)
    a.fail(
        fmt::format("Invalid run command {} value: {} steps, more than a run takes ({}); run in shorter "
                    "pieces (LAMMPS's limit)",
                    upto ? "upto" : "N", n, io::kMaxRunSteps));
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
  const Box& box = sim.state.box;
  if (sim.thermo.lost != "error" && !sim.backend_has(kDropsLostAtoms) &&
      !(box.periodic(0) && box.periodic(1) && box.periodic(2)))
    a.fail("thermo_modify lost " + sim.thermo.lost + " with fixed faces: the " + sim.settings.backend +
           " backend cannot drop atoms that leave the box (one atom per PE); use the cluster backend, or "
           "lost error");
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
  sim.check_thermo_variables();
  // LAMMPS's Domain::init: no box parameter (x y z yz xz xy) changed by two fixes (fix deform and a
  // barostat, two barostats, two deforms).
  for (int d = 0; d < 6; ++d) {
    const Fix* first = nullptr;
    for (const auto& f : sim.fixes) {
      if (!(f->box_components() & (1u << d))) continue;
      if (first)
        a.fail(std::string("Must not have multiple fixes change box parameter ") +
               (d == 0   ? "x"
                : d == 1 ? "y"
                : d == 2 ? "z"
                : d == 3 ? "yz"
                : d == 4 ? "xz"
                         : "xy") +
               " (fix " + first->id() + " " + first->style() + " and fix " + f->id() + " " + f->style() +
               ")");
      first = f.get();
    }
  }
  if (sim.dry_run) {
    sim.validate_run();
    sim.thermo_setup();
    return;
  }
  sim.ramp_start = start, sim.ramp_stop = stop;
  sim.run_pre = pre, sim.run_post = post;
  const int64_t first = sim.state.step;
  try {
    sim.run_steps(n);
  } catch (const InputError& e) {
    // What only the dynamics reveal (a variable that divides by zero at step 5) is a failed run, not a bad
    // input: the dry run refused all it could see (exit 2). The set-up's refusals (the memory budget, the
    // first thermo row) are still the input's.
    if (sim.state.step == first) throw;
    throw RunError(e.what());
  }
}

}  // namespace

WMD_COMMAND("run", cmd_run, kNoPhysics)

}  // namespace wmd::md
