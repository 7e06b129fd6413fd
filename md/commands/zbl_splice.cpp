// wafermd extensions (not LAMMPS commands; docs/input.md):
//   zbl_splice E1 ... En [r_f R] [b_f B] [pair I J R B]   splice ZBL into every pair of the EAM tables
//   write_potential FILE                                  write the (spliced) tables as setfl / eam/fs for
//   LAMMPS
#include "potentials/zbl_splice.hpp"

#include <fmt/format.h>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_zbl_splice(Simulation& sim, const io::Command& c) {
  if (!sim.eam) fail_input(c.pos, "zbl_splice needs a pair_style and pair_coeff first");
  // The splice replaces the EAM's short range by ZBL: on top of pair_style zbl or hybrid/overlay … zbl it
  // would add ZBL twice (and there is no EAM to splice into with zbl alone).
  if (sim.zbl_pair)
    fail_input(c.pos, "zbl_splice with pair_style " + sim.pair_style +
                          " (which has a zbl term already) is not supported: use one or the other");
  io::ArgCursor a(c);
  ZblSettings z;
  z.elements.assign(sim.state.ntypes + 1, "");
  z.z.assign(sim.state.ntypes + 1, 0);
  z.r_f = potentials::kDefaultZblRf;
  z.b_f = potentials::kDefaultZblBf;
  for (int t = 1; t <= sim.state.ntypes; ++t) {
    const std::string e = a.word("an element (or atomic number) for type " + std::to_string(t));
    long long n;
    if (io::parse_integer(e, n) && n >= 1 && n <= 92)
      z.z[t] = static_cast<int>(n);
    else if ((z.z[t] = potentials::atomic_number(e)) == 0)
      a.fail("unknown element '" + e + "' (give a symbol H..U or an atomic number)");
    z.elements[t] = e;
  }
  while (!a.done()) {
    const std::string k = a.choice("a zbl_splice keyword", {"r_f", "b_f", "pair"});
    if (k == "pair") {
      ZblSettings::Pair p;
      p.i = static_cast<int>(a.integer("the first type of the pair", 1, sim.state.ntypes));
      p.j = static_cast<int>(a.integer("the second type of the pair", 1, sim.state.ntypes));
      p.r_f = a.positive("r_f (Å) of the pair");
      p.b_f = a.positive("b_f (1/Å) of the pair");
      z.pairs.push_back(p);
    } else {
      (k == "r_f" ? z.r_f : z.b_f) = a.positive(k == "r_f" ? "r_f (Å)" : "b_f (1/Å)");
    }
  }
  sim.zbl = z;
  sim.potential_changed();
}

void cmd_write_potential(Simulation& sim, const io::Command& c) {
  if (!sim.eam || !sim.eam->complete())
    fail_input(c.pos, "write_potential needs a complete pair_style and pair_coeff");
  io::ArgCursor a(c);
  const std::string file = a.word("a file name");
  a.finish();
  if (sim.dry_run) return;
  const auto& t = sim.tables();
  std::vector<int> z(sim.state.ntypes + 1, 0);
  std::vector<std::string> names(sim.state.ntypes + 1, "X");
  for (int k = 1; k <= sim.state.ntypes; ++k) {
    if (sim.zbl)
      z[k] = sim.zbl->z[k], names[k] = sim.zbl->elements[k];
    else
      names[k] = "T" + std::to_string(k);
  }
  const bool fs = sim.eam->style() == potentials::EamStyle::finnis_sinclair;
  std::string note = "wafermd " + sim.pair_style + " tables";
  if (sim.zbl)
    note +=
        fmt::format(" with ZBL spliced (Fermi switch r_f = {} A, b_f = {} 1/A)", sim.zbl->r_f, sim.zbl->b_f);
  if (!potentials::write_eam_file(t, fs, z, names, file, note))
    fail_input(c.pos, "cannot write '" + file + "'");
  sim.log.line("Wrote " + std::string(fs ? "eam/fs" : "eam/alloy") + " potential file " + file);
}

}  // namespace

WMD_COMMAND("zbl_splice", cmd_zbl_splice, kNoFlags)
WMD_COMMAND("write_potential", cmd_write_potential, kNoFlags)

}  // namespace wmd::md
