// `create_atoms type box|region ID [basis m type]...`: lattice points inside the box or region, with LAMMPS's
// one-rank ids and coordinates on any rank count.
#include "md/core/velocity.hpp"
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_create_atoms(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const int type = static_cast<int>(a.integer("an atom type", 1, sim.state.ntypes));
  const std::string style = a.choice("a create_atoms style", {"box", "region"});
  const Region* region = nullptr;
  if (style == "region") {
    const std::string rid = a.word("a region ID");
    auto it = sim.regions.find(rid);
    if (it == sim.regions.end()) a.fail("unknown region '" + rid + "'");
    region = &it->second;
  }
  if (!sim.lattice.defined()) a.fail("create_atoms needs a lattice (fcc, bcc or sc) defined first");
  std::vector<int> basis_type(sim.lattice.basis.size(), type);
  while (!a.done()) {
    a.choice("a create_atoms keyword", {"basis"});
    const int m =
        static_cast<int>(a.integer("a basis atom index", 1, static_cast<long long>(basis_type.size())));
    basis_type[m - 1] = static_cast<int>(a.integer("an atom type", 1, sim.state.ntypes));
  }
  // Every rank runs the one-rank generation loop and keeps the atoms of its sub-domain: ids and coordinates
  // are LAMMPS's one-rank ones whatever the rank count.
  const int64_t first_id = sim.comm.max(sim.state.atoms.max_id()) + 1;
  const int64_t n = sim.restart_pending()
                        ? 0
                        : create_lattice_atoms(sim.state, sim.lattice, basis_type, region, first_id,
                                               [&sim](double x, double y, double z) {
                                                 return sim.decomp.owns(sim.state.box, x, y, z);
                                               });
  sim.forces_current = false;
  if (!sim.dry_run) sim.log.line("Created " + std::to_string(n) + " atoms");
}

}  // namespace

WMD_COMMAND("create_atoms", cmd_create_atoms, kNoFlags)

}  // namespace wmd::md
