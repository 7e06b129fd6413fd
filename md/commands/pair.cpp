// `pair_style eam|eam/alloy|eam/fs` and `pair_coeff`: the EAM potential and its files. The OPT package's
// variants (eam/opt, eam/alloy/opt, eam/fs/opt) are LAMMPS's same potential, computed faster: the same here.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_pair_style(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string style = a.word("a pair style");
  a.finish();
  potentials::EamStyle es;
  const size_t opt = style.size() > 4 && style.compare(style.size() - 4, 4, "/opt") == 0 ? 4 : 0;
  if (!potentials::parse_eam_style(style.substr(0, style.size() - opt), es)) {
    a.fail("pair_style '" + style + "' is not supported (eam, eam/alloy, eam/fs, and their /opt variants)");
  }
  sim.pair_style = style;
  sim.eam = std::make_unique<potentials::EamBuilder>(es, sim.state.ntypes);
  sim.potential_changed();
}

void cmd_pair_coeff(Simulation& sim, const io::Command& c) {
  if (!sim.eam) fail_input(c.pos, "pair_coeff needs a pair_style first");
  io::ArgCursor a(c);
  const std::string ti = a.word("the first atom type"), tj = a.word("the second atom type");
  const std::string file = a.word("a potential file");
  if (sim.eam->style() == potentials::EamStyle::funcfl) {
    a.finish();
    int ilo, ihi, jlo, jhi;
    if (!io::parse_bounds(ti, sim.state.ntypes, ilo, ihi) ||
        !io::parse_bounds(tj, sim.state.ntypes, jlo, jhi)) {
      a.fail("bad atom types '" + ti + " " + tj + "' (1.." + std::to_string(sim.state.ntypes) + ")");
    }
    sim.eam->add_funcfl(ilo, ihi, jlo, jhi, file, c.pos);
  } else {
    if (ti != "*" || tj != "*")
      a.fail("pair_coeff for " + sim.pair_style + " must be 'pair_coeff * * FILE elements...'");
    std::vector<std::string> elements;
    while (!a.done()) elements.push_back(a.word("an element"));
    sim.eam->set_elements(file, elements, c.pos);
  }
  sim.potential_changed();
  // LAMMPS sets each mapped type's mass from the potential file.
  const potentials::EamTables& t = sim.tables();
  for (int type = 1; type <= sim.state.ntypes; ++type) {
    if (t.type_mass[type] > 0.0) sim.state.mass[type] = t.type_mass[type];
  }
  if (!sim.dry_run) sim.log.line("Reading " + sim.pair_style + " potential file " + file);
}

void cmd_pair_modify(Simulation&, const io::Command& c) {
  // EAM has no energy offset, tail correction or mixed coefficients, and its tables are its own: shift,
  // tail, mix and table change nothing. Keywords that would (pair for hybrid styles, compute no) are refused.
  io::ArgCursor a(c);
  if (a.done()) a.fail("pair_modify needs keywords");
  while (!a.done()) {
    const std::string key =
        a.choice("a pair_modify keyword", {"shift", "tail", "mix", "table", "tabinner", "nofdotr", "pair",
                                           "compute", "special", "table/disp", "tabinner/disp"});
    if (key == "shift" || key == "tail") {
      a.yes_no(key);
    } else if (key == "mix") {
      a.choice("a mixing rule", {"geometric", "arithmetic", "sixthpower"});
    } else if (key == "table") {
      a.integer("the table size", 0, 30);
    } else if (key == "tabinner") {
      a.positive("the inner table cutoff");
    } else if (key != "nofdotr") {
      a.fail("pair_modify " + key +
             " is not supported (eam styles take shift, tail, mix and table, which "
             "change nothing for them)");
    }
  }
}

}  // namespace

WMD_COMMAND("pair_modify", cmd_pair_modify, kNoPhysics)
WMD_COMMAND("pair_style", cmd_pair_style, kNoFlags)
WMD_COMMAND("pair_coeff", cmd_pair_coeff, kNoFlags)

}  // namespace wmd::md
