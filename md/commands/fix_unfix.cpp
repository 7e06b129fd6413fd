// `fix ID group style args...` (styles from the fix registry, md/styles/fixes/) and `unfix ID`.
#include <algorithm>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

// The compute a fix added (Fix::added_compute) leaves with it.
void drop_added_compute(Simulation& sim, const Fix& f) {
  const std::string cid = f.added_compute().first;
  if (cid.empty()) return;
  auto it =
      std::find_if(sim.computes.begin(), sim.computes.end(), [&](const auto& x) { return x->id() == cid; });
  if (it != sim.computes.end()) sim.computes.erase(it);
}

void cmd_fix(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string id = a.word("a fix ID");
  const uint32_t group = sim.group_of(a, a.word("a group ID"));
  const std::string style = a.word("a fix style");
  const FixBuildContext ctx = sim.fix_build_context();
  std::unique_ptr<Fix> f = make_fix(FixArgs{id, group, style, a, ctx});
  if (f->load_balance()) {
    for (const auto& x : sim.fixes)
      if (x->load_balance() && x->id() != id) a.fail("fix " + x->id() + " already balances the sub-domains");
    if (!sim.backend_has(kSubdomains))
      sim.log.line("fix balance: the " + sim.settings.backend +
                   " backend has no sub-domains to balance; ignored");
  }
  // As LAMMPS: a fix whose ID and style a read_restart file carried takes back its state (if LAMMPS's
  // fix of that style keeps one in restart files).
  if (f->keeps_restart_state())  // the style checks what it reads (FixStateReader)
    sim.take_restart_state(sim.restart_fix_states, "fix", id, style, a,
                           [&](const NamedArrays& st) { f->restore_restart_state(st); });
  // As LAMMPS: redefining an ID replaces the fix in place (same position in the hook order); the old fix's
  // compute goes with it (its destructor's delete_compute) before the new one adds its own.
  auto it = std::find_if(sim.fixes.begin(), sim.fixes.end(), [&](const auto& x) { return x->id() == id; });
  if (it != sim.fixes.end()) drop_added_compute(sim, **it);
  const auto [cid, cstyle] = f->added_compute();
  if (!cid.empty()) {
    if (sim.find_compute(cid))
      a.fail("fix " + id + ": compute ID '" + cid + "' is already defined (LAMMPS: Reuse of compute ID)");
    const io::Command none{"fix", {}, c.pos, ""};
    io::ArgCursor no_args(none);
    const ComputeBuildContext cctx = sim.compute_build_context();
    sim.computes.push_back(make_compute(ComputeArgs{cid, group, cstyle, no_args, cctx}));
  }
  if (it != sim.fixes.end())
    *it = std::move(f);
  else
    sim.fixes.push_back(std::move(f));
}

void cmd_unfix(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a fix ID");
  a.finish();
  auto it = std::find_if(sim.fixes.begin(), sim.fixes.end(), [&](const auto& x) { return x->id() == id; });
  if (it == sim.fixes.end()) a.fail("unknown fix ID '" + id + "'");
  drop_added_compute(sim, **it);
  sim.fixes.erase(it);
}

// fix_modify ID temp cID | energy yes|no | … : the keywords a style accepts (Fix::modify_param); energy yes
// only for fixes with a global energy (indent, spring), as LAMMPS's energy_global_flag.
void cmd_fix_modify(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a fix ID");
  Fix* f = sim.find_fix(id);
  if (!f) a.fail("fix_modify: fix " + id + " does not exist");
  if (a.done()) a.fail("fix_modify needs a keyword");
  while (!a.done()) {
    const std::string k = a.word("a fix_modify keyword");
    if (f->modify_param(k, a, sim)) continue;
    if (k == "energy") {  // LAMMPS's thermo_energy: only fixes with a global energy accept yes
      const bool on = a.yes_no("energy");
      if (on && !f->has_global_energy())
        a.fail("fix_modify energy yes: fix " + f->style() + " adds no energy here (not supported)");
      f->set_energy_in_pe(on);
      continue;
    }
    a.fail("fix_modify: fix " + f->style() + " has no keyword '" + k + "' here");
  }
}

}  // namespace

WMD_COMMAND("fix_modify", cmd_fix_modify, kNoFlags)
WMD_COMMAND("fix", cmd_fix, kNoFlags)
WMD_COMMAND("unfix", cmd_unfix, kNoFlags)

}  // namespace wmd::md
