// wafermd extension: `cascade (id N | near X Y Z) energy E (direction DX DY DZ | random SEED [min_angle DEG])
// [border W] [time T] [element SYM]`: the PKA kick, the border thermostat group and the end time of the next
// run (docs/cascades.md).
#include <fmt/format.h>

#include <cmath>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_cascade(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  int64_t id = -1;
  double point[3] = {0, 0, 0}, energy = -1.0, dir[3] = {0, 0, 0}, border = 0.0, duration = -1.0;
  double min_angle = 10.0;
  bool near = false, random = false, have_dir = false;
  uint64_t seed = 0;
  std::string element;
  while (!a.done()) {
    const std::string k = a.choice("a cascade keyword", {"id", "near", "energy", "direction", "random",
                                                         "min_angle", "border", "time", "element"});
    if (k == "id") {
      id = a.integer("the PKA atom id", 1, 4000000000000000000LL);
    } else if (k == "near") {
      for (double& p : point) p = a.real("a coordinate of the PKA point (Å)");
      near = true;
    } else if (k == "energy") {
      energy = a.positive("the PKA energy (eV)");
    } else if (k == "direction") {
      for (double& d : dir) d = a.real("a direction component");
      if (dir[0] == 0 && dir[1] == 0 && dir[2] == 0) a.fail("the PKA direction must not be zero");
      have_dir = true;
    } else if (k == "random") {
      seed = static_cast<uint64_t>(a.integer("the direction seed", 1, 4000000000000000000LL));
      random = have_dir = true;
    } else if (k == "min_angle") {
      min_angle = a.non_negative("the minimum angle to a low-index axis (degrees)");
      if (min_angle > 20.0) a.fail("min_angle above 20 degrees leaves no direction free");
    } else if (k == "border") {
      border = a.non_negative("the border thermostat thickness (Å)");
    } else if (k == "time") {
      duration = a.positive("the cascade time (ps)");
    } else {
      element = a.word("an element symbol");
    }
  }
  if ((id < 0) == !near) a.fail("cascade needs exactly one of 'id N' or 'near X Y Z'");
  if (energy <= 0) a.fail("cascade needs 'energy E' (eV)");
  if (!have_dir) a.fail("cascade needs 'direction DX DY DZ' or 'random SEED'");
  // The PKA set-up, its thermostatted border slabs and the Wigner–Seitz analysis work on orthogonal boxes.
  if (sim.state.box.triclinic)
    a.fail("cascade needs an orthogonal box (its border slabs and defect analysis are not built for tilts)");
  for (int d = 0; d < 3; ++d) {
    if (border > 0 && 2.0 * border >= sim.state.box.prd(d))
      a.fail("the border slab is thicker than half the box");
  }
  if (random) {
    const auto d = random_direction(seed, min_angle);
    for (int k = 0; k < 3; ++k) dir[k] = d[k];
  }
  if (border > 0.0 && !sim.state.group_bit("cascade_border")) {
    // Border thermostat group (its members are set below), named now so that fixes can refer to it.
    if (sim.state.group_names.size() >= 32) a.fail("too many groups for the cascade border group");
    sim.state.group_names.push_back("cascade_border");
  }
  // A restart's atoms arrive with the checkpoint, already kicked and grouped, with the PKA, stop time and
  // defect samples of the run that wrote it: nothing more to do here.
  if (sim.restart_pending()) return;
  if (near) id = nearest_atom(sim.state, sim.comm, point);
  int pka_type = 0;
  for (size_t i = 0; i < sim.state.atoms.size(); ++i)
    if (sim.state.atoms.id[i] == id) pka_type = sim.state.atoms.type[i];
  pka_type = static_cast<int>(sim.comm.max(static_cast<int64_t>(pka_type)));
  if (pka_type == 0) a.fail("no atom has id " + std::to_string(id));
  if (sim.state.mass[pka_type] <= 0) a.fail("the PKA's type has no mass yet");
  kick_pka(sim.state, sim.comm, id, energy, dir);
  if (border > 0.0) {
    // Border thermostat group: atoms within `border` of a face at this moment (static, as LAMMPS groups are).
    const uint32_t bit = sim.state.group_bit("cascade_border");
    Atoms& at = sim.state.atoms;
    const double* pos[3] = {at.x.data(), at.y.data(), at.z.data()};
    for (size_t i = 0; i < at.size(); ++i) {
      bool in = false;
      for (int d = 0; d < 3; ++d)
        in = in || pos[d][i] < sim.state.box.lo[d] + border || pos[d][i] >= sim.state.box.hi[d] - border;
      at.mask[i] = in ? (at.mask[i] | bit) : (at.mask[i] & ~bit);
    }
  }
  sim.cascade.stop_time = duration > 0 ? sim.state.time + duration : -1.0;
  if (element.empty() && sim.zbl) element = sim.zbl->elements[pka_type];
  sim.cascade.element = element;
  const double norm = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
  sim.cascade.report = nlohmann::json::object();
  sim.cascade.report["pka_id"] = id;
  sim.cascade.report["pka_energy_ev"] = energy;
  sim.cascade.report["pka_direction"] = {dir[0] / norm, dir[1] / norm, dir[2] / norm};
  sim.cascade.report["element"] = element;
  if (!sim.dry_run) {
    sim.log.line(
        fmt::format("Cascade: PKA atom {} ({} eV) along ({:.4f}, {:.4f}, {:.4f}){}", id, energy,
                    dir[0] / norm, dir[1] / norm, dir[2] / norm,
                    border > 0 ? fmt::format(", border thermostat group {:.3g} A thick", border) : ""));
  }
}

}  // namespace

WMD_COMMAND("cascade", cmd_cascade, kNoFlags)

}  // namespace wmd::md
