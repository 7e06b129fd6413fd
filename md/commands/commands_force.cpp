// Commands that choose the potential and the neighbour-list policy.
#include "md/run/simulation.hpp"

namespace wmd::md {

void Simulation::cmd_pair_style(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const std::string style = a.word("a pair style");
  a.finish();
  potentials::EamStyle es;
  if (!potentials::parse_eam_style(style, es)) {
    a.fail("pair_style '" + style + "' is not supported (eam, eam/alloy, eam/fs)");
  }
  pair_style_ = style;
  eam_ = std::make_unique<potentials::EamBuilder>(es, s_.ntypes);
  tables_.reset();
  forces_current_ = false;
}

void Simulation::cmd_pair_coeff(const io::Command& c) {
  if (!eam_) fail_input(c.pos, "pair_coeff needs a pair_style first");
  io::ArgCursor a(c);
  const std::string ti = a.word("the first atom type"), tj = a.word("the second atom type");
  const std::string file = a.word("a potential file");
  if (eam_->style() == potentials::EamStyle::funcfl) {
    a.finish();
    int ilo, ihi, jlo, jhi;
    if (!io::parse_bounds(ti, s_.ntypes, ilo, ihi) || !io::parse_bounds(tj, s_.ntypes, jlo, jhi)) {
      a.fail("bad atom types '" + ti + " " + tj + "' (1.." + std::to_string(s_.ntypes) + ")");
    }
    eam_->add_funcfl(ilo, ihi, jlo, jhi, file, c.pos);
  } else {
    if (ti != "*" || tj != "*")
      a.fail("pair_coeff for " + pair_style_ + " must be 'pair_coeff * * FILE elements...'");
    std::vector<std::string> elements;
    while (!a.done()) elements.push_back(a.word("an element"));
    eam_->set_elements(file, elements, c.pos);
  }
  tables_.reset();
  forces_current_ = false;
  // LAMMPS sets each mapped type's mass from the potential file.
  const potentials::EamTables& t = tables();
  for (int type = 1; type <= s_.ntypes; ++type) {
    if (t.type_mass[type] > 0.0) s_.mass[type] = t.type_mass[type];
  }
  if (!dry_run_) log_.line("Reading " + pair_style_ + " potential file " + file);
}

void Simulation::cmd_neighbor(const io::Command& c) {
  io::ArgCursor a(c);
  neighbor_.skin = a.non_negative("the skin distance (Å)");
  a.choice("a binning style", {"bin", "nsq"});
  a.finish();
}

void Simulation::cmd_neigh_modify(const io::Command& c) {
  io::ArgCursor a(c);
  if (a.done()) a.fail("neigh_modify needs keywords (every, delay, check, once, one, page)");
  while (!a.done()) {
    const std::string key =
        a.choice("a neigh_modify keyword", {"every", "delay", "check", "once", "one", "page"});
    if (key == "every")
      neighbor_.every = static_cast<int>(a.integer("every", 1, 1000000000));
    else if (key == "delay")
      neighbor_.delay = static_cast<int>(a.integer("delay", 0, 1000000000));
    else if (key == "check")
      neighbor_.check = a.yes_no("check");
    else if (key == "once")
      neighbor_.once = a.yes_no("once");
    else
      a.integer(key, 1, 2000000000);  // list capacities: wafermd grows its lists as needed
  }
}

}  // namespace wmd::md
