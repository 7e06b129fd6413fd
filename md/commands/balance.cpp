// `balance thresh shift dimstr Niter stopthresh`: moves the cluster backend's sub-domain cuts so that each
// slab holds its share of the atoms (md/core/balance.hpp).
#include "md/core/balance.hpp"

#include <fmt/format.h>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_balance(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const ShiftBalance b = read_shift_balance(a, "balance");
  if (sim.restart_pending() || sim.dry_run) return;  // a restart takes the cuts from the checkpoint
  if (!sim.backend_has(kSubdomains)) {
    sim.log.line("balance: the " + sim.settings.backend + " backend has no sub-domains to balance; ignored");
    return;
  }
  if (!sim.eam || !sim.eam->complete())
    a.fail(
        "balance needs the pair potential (pair_style and pair_coeff) first: sub-domains stay at least "
        "cutoff + skin wide");
  const double min_width = sim.tables().cutmax + sim.neighbor.skin;
  const BalanceReport r = balance_shift(sim.comm, sim.decomp, sim.state.box, sim.state.atoms, b, min_width);
  sim.log.line("Balancing ...");
  sim.log.line(fmt::format("  initial imbalance factor = {:.6g}", r.initial));
  for (int d = 0; d < 3; ++d) {
    if (sim.decomp.grid()[d] == 1) continue;
    std::string line = std::string("  ") + "xyz"[d] + " cuts =";
    for (const double f : sim.decomp.cuts(d)) line += fmt::format(" {:.6g}", f);
    sim.log.line(line);
  }
  sim.log.line(fmt::format("  final imbalance factor = {:.6g}", r.final));
}

}  // namespace

WMD_COMMAND("balance", cmd_balance, kNoFlags)

}  // namespace wmd::md
