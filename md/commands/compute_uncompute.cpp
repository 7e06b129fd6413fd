// `compute ID group style args...` (styles from the compute registry, md/styles/computes/) and `uncompute
// ID`.
#include <algorithm>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_compute(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string id = a.word("a compute ID");
  const uint32_t group = sim.group_of(a, a.word("a group ID"));
  const std::string style = a.word("a compute style");
  if (sim.find_compute(id)) a.fail("compute ID '" + id + "' is already defined");
  const ComputeBuildContext ctx = sim.compute_build_context();
  std::unique_ptr<Compute> cp = make_compute(ComputeArgs{id, group, style, a, ctx});
  // As LAMMPS: a compute whose ID and style a read_restart file carried takes back the state its fix STORE
  // kept (msd's, vacf's and displace/atom's references).
  if (cp->keeps_restart_state())  // the style checks what it reads (FixStateReader)
    sim.take_restart_state(sim.restart_compute_states, "compute", id, style, a,
                           [&](const NamedArrays& st) { cp->restore_state(st); });
  sim.computes.push_back(std::move(cp));
}

void cmd_uncompute(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a compute ID");
  a.finish();
  auto it =
      std::find_if(sim.computes.begin(), sim.computes.end(), [&](const auto& x) { return x->id() == id; });
  if (it == sim.computes.end()) a.fail("unknown compute ID '" + id + "'");
  sim.computes.erase(it);
}

// compute_modify ID extra/dof N | dynamic/dof yes|no (and LAMMPS's older spellings extra, dynamic).
void cmd_compute_modify(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a compute ID");
  Compute* cp = sim.find_compute(id);
  if (!cp) a.fail("compute_modify: compute " + id + " does not exist");
  if (a.done()) a.fail("compute_modify needs a keyword (extra/dof, dynamic/dof)");
  while (!a.done()) {
    const std::string k =
        a.choice("a compute_modify keyword", {"extra/dof", "extra", "dynamic/dof", "dynamic"});
    if (k == "extra/dof" || k == "extra")
      cp->set_extra_dof(a.real("the extra degrees of freedom"));
    else
      cp->set_dynamic_dof(a.yes_no(k));
  }
}

}  // namespace

WMD_COMMAND("compute_modify", cmd_compute_modify, kNoPhysics)
WMD_COMMAND("compute", cmd_compute, kNoPhysics)
WMD_COMMAND("uncompute", cmd_uncompute, kNoPhysics)

}  // namespace wmd::md
