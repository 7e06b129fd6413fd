// `pair_style` and `pair_coeff`: the pair potential, as LAMMPS sets it up —
//   eam | eam/alloy | eam/fs                      the EAM potential and its files;
//   zbl inner outer                               the ZBL repulsion alone (pair_coeff I J z1 z2);
//   hybrid/overlay EAMSTYLE zbl inner outer       the collision-cascade set-up: ZBL added to the EAM on the
//                                                 type pairs a `pair_coeff I J zbl z1 z2` names (either
//                                                 order, or one sub-style alone), pair_coeff naming the
//                                                 sub-style.
// The OPT package's variants (eam/opt, eam/alloy/opt, eam/fs/opt) are LAMMPS's same potential, computed
// faster: the same here. Other hybrid forms and sub-styles are refused, naming what runs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

constexpr const char* kWhatRuns =
    "eam, eam/alloy, eam/fs (and their /opt variants), zbl, and hybrid/overlay of one of the eam styles with "
    "zbl";

// The EAM style of a name, /opt stripped; false for anything else.
bool eam_style_of(const std::string& name, potentials::EamStyle& es) {
  const size_t opt = name.size() > 4 && name.compare(name.size() - 4, 4, "/opt") == 0 ? 4 : 0;
  return potentials::parse_eam_style(name.substr(0, name.size() - opt), es);
}

// `zbl inner outer`: LAMMPS's PairZBL::settings.
void zbl_settings(const io::ArgCursor& a, const std::vector<std::string>& args, double& inner,
                  double& outer) {
  if (args.size() != 2)
    a.fail(
        fmt::format("pair_style zbl takes two cut-offs, inner and outer (got {} values; LAMMPS: \"Illegal "
                    "pair_style command\")",
                    args.size()));
  if (!io::parse_double(args[0], inner) || !io::parse_double(args[1], outer))
    a.fail("pair_style zbl: the cut-offs '" + args[0] + " " + args[1] + "' are not numbers");
  if (!(inner > 0.0))
    a.fail("pair_style zbl: the inner cut-off must be > 0 (LAMMPS: \"Illegal pair_style\")");
  if (!(inner <= outer))
    a.fail("pair_style zbl: the inner cut-off must not exceed the outer (LAMMPS: \"Illegal pair_style\")");
}

void cmd_pair_style(Simulation& sim, const io::Command& c) {
  // LAMMPS takes pair_style before the box too; the atom types are known at the first pair_coeff (which needs
  // the box), where the builders are sized to them (types_known).
  io::ArgCursor a(c);
  const std::string style = a.word("a pair style");
  std::vector<std::string> rest;
  while (!a.done()) rest.push_back(a.word("an argument"));
  const int nt = sim.state.box.defined ? sim.state.ntypes : 0;
  potentials::EamStyle es;
  std::unique_ptr<potentials::EamBuilder> eam;
  std::unique_ptr<potentials::ZblBuilder> zbl;
  std::vector<std::string> subs;
  if (eam_style_of(style, es)) {
    if (!rest.empty())
      a.fail("pair_style " + style + " takes no arguments (LAMMPS: \"Illegal pair_style command\")");
    eam = std::make_unique<potentials::EamBuilder>(es, nt);
  } else if (style == "zbl") {
    double inner, outer;
    zbl_settings(a, rest, inner, outer);
    eam = std::make_unique<potentials::EamBuilder>(potentials::EamStyle::none, nt);
    zbl = std::make_unique<potentials::ZblBuilder>(nt, inner, outer, false, c.pos);
  } else if (style == "hybrid/overlay") {
    // Sub-styles and their arguments: a word that is not a number starts a sub-style (LAMMPS: a word that
    // names a pair style).
    std::vector<std::pair<std::string, std::vector<std::string>>> parts;
    for (const std::string& w : rest) {
      double v;
      if (!parts.empty() && io::parse_double(w, v))
        parts.back().second.push_back(w);
      else
        parts.push_back({w, {}});
    }
    if (parts.empty()) a.fail("pair_style hybrid/overlay needs sub-styles (LAMMPS: \"Illegal pair_style\")");
    std::string eam_name;
    double inner = 0.0, outer = 0.0;
    bool have_zbl = false;
    for (const auto& [name, args] : parts) {
      potentials::EamStyle sub;
      if (eam_style_of(name, sub)) {
        if (!eam_name.empty())
          a.fail("pair_style hybrid/overlay: two EAM sub-styles (" + eam_name + ", " + name +
                 ") are not supported; what runs: " + kWhatRuns);
        if (!args.empty())
          a.fail("pair_style hybrid/overlay: sub-style " + name +
                 " takes no arguments (LAMMPS: \"Illegal pair_style command\")");
        eam_name = name, es = sub;
      } else if (name == "zbl") {
        if (have_zbl)
          a.fail(std::string("pair_style hybrid/overlay: zbl twice is not supported; what runs: ") +
                 kWhatRuns);
        zbl_settings(a, args, inner, outer);
        have_zbl = true;
      } else if (name == "hybrid" || name == "hybrid/overlay" || name == "none") {
        a.fail("pair_style hybrid/overlay cannot have " + name +
               " as a sub-style (LAMMPS: \"Pair style hybrid cannot have " + name + " as an argument\")");
      } else {
        a.fail("pair_style hybrid/overlay: sub-style '" + name +
               "' is not supported; what runs: " + kWhatRuns);
      }
      subs.push_back(name);
    }
    eam = std::make_unique<potentials::EamBuilder>(eam_name.empty() ? potentials::EamStyle::none : es, nt);
    if (have_zbl) zbl = std::make_unique<potentials::ZblBuilder>(nt, inner, outer, !eam_name.empty(), c.pos);
  } else if (style == "hybrid" || style.rfind("hybrid/", 0) == 0) {
    a.fail("pair_style " + style +
           " is not supported (each type pair takes one sub-style, so the EAM would skip the pairs another "
           "sub-style takes); what runs: " +
           kWhatRuns);
  } else {
    a.fail("pair_style '" + style + "' is not supported; what runs: " + kWhatRuns);
  }
  sim.pair_style = style;
  sim.pair_substyles = subs;
  sim.potential_files.clear();
  sim.pair_style_pos = c.pos;
  sim.eam = std::move(eam);
  sim.zbl_pair = std::move(zbl);
  sim.potential_changed();
}

// A pair_style given before the box counted no atom types: its builders take the box's now (nothing can have
// been set for them yet, pair_coeff needing the box).
void types_known(Simulation& sim) {
  const int nt = sim.state.ntypes;
  if (sim.eam->ntypes() != nt) sim.eam = std::make_unique<potentials::EamBuilder>(sim.eam->style(), nt);
  if (sim.zbl_pair && sim.zbl_pair->ntypes() != nt)
    sim.zbl_pair = std::make_unique<potentials::ZblBuilder>(nt, sim.zbl_pair->inner(), sim.zbl_pair->outer(),
                                                            sim.zbl_pair->with_eam(), sim.pair_style_pos);
}

// Types I and J of a pair_coeff (LAMMPS's utils::bounds).
void type_bounds(const io::ArgCursor& a, const std::string& ti, const std::string& tj, int n, int& ilo,
                 int& ihi, int& jlo, int& jhi) {
  if (!io::parse_bounds(ti, n, ilo, ihi) || !io::parse_bounds(tj, n, jlo, jhi))
    a.fail("bad atom types '" + ti + " " + tj + "' (1.." + std::to_string(n) + ")");
}

// `pair_coeff I J [zbl] z1 z2` (the cursor after I J [zbl]): LAMMPS's PairZBL::coeff.
void zbl_coeff(Simulation& sim, io::ArgCursor& a, const std::string& ti, const std::string& tj) {
  std::vector<std::string> z;
  while (!a.done()) z.push_back(a.word("a nuclear charge"));
  if (z.size() != 2)
    a.fail(
        fmt::format("pair_coeff for zbl takes two nuclear charges z1 z2 (got {}; LAMMPS: \"Incorrect args "
                    "for pair coefficients\")",
                    z.size()));
  double z1, z2;
  for (int k = 0; k < 2; ++k) {
    double& v = k == 0 ? z1 : z2;
    if (!io::parse_double(z[k], v))
      a.fail("pair_coeff for zbl: '" + z[k] +
             "' is not a nuclear charge (a number; LAMMPS: \"Expected floating "
             "point parameter\")");
    // LAMMPS takes any number; a negative charge makes pow(z, 0.23) NaN and every ZBL energy NaN.
    if (!(v >= 0.0 && std::isfinite(v)))
      a.fail("pair_coeff for zbl: the nuclear charge " + z[k] +
             " is negative or not finite (LAMMPS would give NaN energies)");
  }
  int ilo, ihi, jlo, jhi;
  type_bounds(a, ti, tj, sim.state.ntypes, ilo, ihi, jlo, jhi);
  sim.zbl_pair->coeff(ilo, ihi, jlo, jhi, z1, z2, a.pos());
}

// `pair_coeff I J [eamstyle] FILE [elements…]` (the cursor after I J [eamstyle]).
void eam_coeff(Simulation& sim, io::ArgCursor& a, const std::string& ti, const std::string& tj,
               const std::string& name) {
  const std::string file = a.word("a potential file");
  if (sim.eam->style() == potentials::EamStyle::funcfl) {
    a.finish();
    int ilo, ihi, jlo, jhi;
    type_bounds(a, ti, tj, sim.state.ntypes, ilo, ihi, jlo, jhi);
    sim.eam->add_funcfl(ilo, ihi, jlo, jhi, file, a.pos());
  } else {
    if (ti != "*" || tj != "*")
      a.fail("pair_coeff for " + name + " must be 'pair_coeff * * FILE elements...'");
    std::vector<std::string> elements;
    while (!a.done()) elements.push_back(a.word("an element"));
    sim.eam->set_elements(file, elements, a.pos());
  }
  if (std::find(sim.potential_files.begin(), sim.potential_files.end(), file) == sim.potential_files.end())
    sim.potential_files.push_back(file);
  sim.potential_changed();
  // LAMMPS sets each mapped type's mass from the potential file. (The EAM tables alone: a hybrid's zbl may
  // not have its pair_coeff yet.)
  const potentials::EamTables t = sim.eam->build();
  for (int type = 1; type <= sim.state.ntypes; ++type) {
    if (t.type_mass[type] > 0.0) sim.state.mass[type] = t.type_mass[type];
  }
  if (!sim.dry_run) sim.log.line("Reading " + name + " potential file " + file);
}

void cmd_pair_coeff(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  if (!sim.eam) fail_input(c.pos, "pair_coeff needs a pair_style first");
  types_known(sim);
  io::ArgCursor a(c);
  const std::string ti = a.word("the first atom type"), tj = a.word("the second atom type");
  if (sim.pair_style == "zbl") {
    zbl_coeff(sim, a, ti, tj);
  } else if (sim.pair_style != "hybrid/overlay") {
    eam_coeff(sim, a, ti, tj, sim.pair_style);
  } else {
    // LAMMPS's PairHybrid::coeff: the third word names the sub-style.
    const std::string sub = a.word("a hybrid/overlay sub-style");
    const auto& subs = sim.pair_substyles;
    if (sub == "none")
      a.fail(
          "pair_coeff … none under hybrid/overlay is not supported (the EAM sub-style would skip those "
          "type pairs)");
    if (std::find(subs.begin(), subs.end(), sub) == subs.end())
      a.fail("pair_coeff: '" + sub +
             "' is not a sub-style of this pair_style hybrid/overlay (LAMMPS: \"Pair "
             "coeff for hybrid has invalid style\")");
    if (sub == "zbl") {
      zbl_coeff(sim, a, ti, tj);
    } else {
      eam_coeff(sim, a, ti, tj, sub);
    }
  }
  // funcfl eam under hybrid/overlay with zbl: LAMMPS's hybrid mixes the I≠J pairs only when I,I and J,J have
  // one sub-style; with zbl on them it stops, or eam skips the pairs zbl alone takes.
  if (sim.zbl_pair && sim.eam->style() == potentials::EamStyle::funcfl && sim.state.ntypes > 1 &&
      sim.zbl_pair->used())
    a.fail(
        "pair_style hybrid/overlay eam zbl with more than one atom type is not supported: LAMMPS maps the "
        "I≠J pairs of funcfl eam only where I,I and J,J have eam alone (\"All pair coeffs are not set\"); "
        "use eam/alloy or eam/fs");
  sim.potential_changed();
}

void cmd_pair_modify(Simulation&, const io::Command& c) {
  // EAM has no energy offset, tail correction or mixed coefficients, and its tables are its own: shift,
  // tail, mix and table change nothing. ZBL's energy is already 0 at its outer cut-off (shift changes
  // nothing) and it takes no mixing rule. Keywords that would (pair for hybrid styles, compute no) are
  // refused.
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
             " is not supported (eam and zbl styles take shift, tail, mix and table, which "
             "change nothing for them)");
    }
  }
}

}  // namespace

WMD_COMMAND("pair_modify", cmd_pair_modify, kNoPhysics)
WMD_COMMAND("pair_style", cmd_pair_style, kNoFlags)
WMD_COMMAND("pair_coeff", cmd_pair_coeff, kNoFlags)

}  // namespace wmd::md
