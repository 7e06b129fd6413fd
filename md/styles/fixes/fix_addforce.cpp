// fix addforce fx fy fz [every N] [region ID] [energy v_name], as LAMMPS's fix addforce: after the forces
// (every N steps, the set-up included) each atom of the group gets the force added; a component may be a
// number or v_name of an equal-style variable (one value) or an atom-style one (a value per atom), evaluated
// then. The scalar is −Σ f·x_unwrapped of the added force, or with `energy v_name` (an atom-style variable,
// only with variable forces) the sum of that variable over the atoms; the vector is the group's total force
// before the addition (extensive). `fix_modify energy yes` and the virial are not supported (LAMMPS's
// defaults leave both out).
#include <optional>

#include "md/core/unwrapped_position.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

class FixAddforce : public Fix {
 public:
  FixAddforce(const FixArgs& f, const ForceComponent (&comp)[3], int every, std::string energy)
      : Fix(f.id, f.style, f.group), every_(every), energy_(std::move(energy)), at_(f.a.pos()) {
    for (int d = 0; d < 3; ++d) comp_[d] = comp[d];
  }
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  OutputShape shape() const override { return {true, 3, -1, true}; }

  void init(FixContext& c) override { check(c); }
  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
    if (c.s.step % every_ != 0) return;
    check(c);  // minimize calls no init; a few name look-ups
    apply(c);
  }
  // LAMMPS's init during minimize: a variable force has no energy of its own to minimise.
  void min_post_force(FixContext&) override {
    if (variable_ && energy_.empty())
      fail_input(at_, "fix addforce " + id_ +
                          ": minimize with variable forces needs the energy keyword (LAMMPS: \"Must use "
                          "variable energy with fix addforce\")");
  }
  bool scalar(double& v) const override {
    v = total(0);
    return true;
  }
  double vector_value(int i) const override { return i >= 0 && i < 3 ? total(i + 1) : 0.0; }

 private:
  void check(FixContext& c) {
    const std::string who = "fix addforce " + id_;
    variable_ = resolve_force_components(comp_, c.styles, at_, who, true);
    if (energy_.empty()) return;
    if (!c.styles || !c.styles->has_atom_variable(energy_))
      fail_input(
          at_, who + ": the energy variable " + energy_ +
                   (c.styles && c.styles->has_variable(energy_) ? " is not atom-style" : " does not exist"));
    if (!variable_)
      fail_input(at_,
                 who +
                     ": the energy keyword needs variable forces (LAMMPS: \"Cannot use variable energy with "
                     "constant force in fix addforce\")");
  }

  void apply(FixContext& c) {
    Atoms& a = c.s.atoms;
    tally_.start(c.comm, 4);  // the energy −F·x (or the energy variable), then the forces before the addition
    if (!variable_) {
      const double v[3] = {comp_[0].value, comp_[1].value, comp_[2].value};
      for (size_t i = 0; i < a.size(); ++i) {
        if (!selected(c.s, i)) continue;
        double u[3];
        unwrapped_position(c.s, i, u);  // LAMMPS's domain->unmap
        tally_.add(0, -(v[0] * u[0] + v[1] * u[1] + v[2] * u[2]));
        tally_.add(1, a.fx[i]), tally_.add(2, a.fy[i]), tally_.add(3, a.fz[i]);
        a.fx[i] += v[0], a.fy[i] += v[1], a.fz[i] += v[2];
      }
      tally_.finish();
      return;
    }
    // The variables are evaluated (x, y, z, then the energy) before any force changes.
    evaluate_force_components(comp_, *c.styles, at_);
    if (!energy_.empty()) c.styles->atom_variable(energy_, at_, energy_per_atom_);
    bool atom[3];
    for (int d = 0; d < 3; ++d) atom[d] = comp_[d].kind == ForceComponent::Kind::atom;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      double u[3];
      unwrapped_position(c.s, i, u);  // LAMMPS's domain->unmap
      double v[3];
      for (int d = 0; d < 3; ++d) v[d] = atom[d] ? comp_[d].per_atom[i] : comp_[d].value;
      if (!energy_.empty()) {
        tally_.add(0, energy_per_atom_[i]);
      } else {
        tally_.add(0, -(v[0] * u[0])), tally_.add(0, -(v[1] * u[1])), tally_.add(0, -(v[2] * u[2]));
      }
      tally_.add(1, a.fx[i]), tally_.add(2, a.fy[i]), tally_.add(3, a.fz[i]);
      a.fx[i] += v[0], a.fy[i] += v[1], a.fz[i] += v[2];
    }
    tally_.finish();
  }
  // Summed over ranks when first asked after a step (LAMMPS's force_flag): collective.
  double total(int k) const { return tally_.total(k); }
  ForceComponent comp_[3];
  int every_;
  std::string energy_;  // the atom-style variable of `energy v_name`; empty: none
  SourcePos at_;
  bool variable_ = false;  // some component is a variable (LAMMPS's varflag)
  std::vector<double> energy_per_atom_;
  StepTally tally_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  ForceComponent comp[3];
  for (ForceComponent& k : comp) k = force_component_arg(f.a, "fix addforce", false);
  int every = 1;
  std::optional<Region> region;
  std::string energy;
  while (!f.a.done()) {
    const std::string k = f.a.choice("a fix addforce keyword", {"every", "region", "energy"});
    if (k == "every") {
      every = static_cast<int>(f.a.integer("every (steps)", 1, 2000000000));
    } else if (k == "region") {
      region = region_arg(f.a, f.ctx.regions, "fix addforce");
    } else {
      const std::string w = f.a.word("v_name of an atom-style variable");
      if (w.rfind("v_", 0) != 0) f.a.fail("fix addforce: energy takes v_name, got '" + w + "'");
      energy = w.substr(2);
    }
  }
  auto fix = std::make_unique<FixAddforce>(f, comp, every, energy);
  if (region) fix->set_region(*region);
  return fix;
}

}  // namespace

WMD_FIX_STYLE("addforce", make)

}  // namespace wmd::md
