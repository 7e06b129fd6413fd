// fix setforce fx fy fz [region ID], as LAMMPS's fix setforce: after the forces of each step and at the
// run's set-up, each set component of the group's atoms becomes the given value — a number, v_name of an
// equal-style variable (one value) or of an atom-style one (a value per atom), evaluated then; NULL leaves a
// component alone. Its vector is the total force the atoms had before (f_ID[1..3], extensive). In minimize
// only zero numbers are allowed (LAMMPS: "Cannot use non-zero forces in an energy minimization").
#include "md/styles/fix.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

class FixSetforce : public Fix {
 public:
  FixSetforce(const FixArgs& f, const ForceComponent (&comp)[3])
      : Fix(f.id, f.style, f.group), at_(f.a.pos()) {
    for (int d = 0; d < 3; ++d) comp_[d] = comp[d];
  }
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  OutputShape shape() const override { return {false, 3, -1, true}; }

  void init(FixContext& c) override { check(c); }
  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
    check(c);  // minimize calls no init; a few name look-ups
    Atoms& a = c.s.atoms;
    std::vector<double>* f[3] = {&a.fx, &a.fy, &a.fz};
    tally_.start(c.comm, 3);  // the forces before they are set
    if (variable_) evaluate_force_components(comp_, *c.styles, at_);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      for (int d = 0; d < 3; ++d) {
        tally_.add(d, (*f[d])[i]);
        const ForceComponent& k = comp_[d];
        if (k.set()) (*f[d])[i] = k.kind == ForceComponent::Kind::atom ? k.per_atom[i] : k.value;
      }
    }
    tally_.finish();
  }
  // LAMMPS's init during minimize: only zero forces, since no energy goes with the others.
  void min_post_force(FixContext&) override {
    for (const ForceComponent& k : comp_)
      if (k.variable() || (k.set() && k.value != 0.0))
        fail_input(at_,
                   "fix setforce " + id_ +
                       ": minimize cannot use non-zero or variable forces (LAMMPS: \"Cannot use non-zero "
                       "forces in an energy minimization\"; use fix addforce)");
  }
  // The sum over ranks when first asked after a step (LAMMPS's force_flag): collective.
  double vector_value(int i) const override { return i >= 0 && i < 3 ? tally_.total(i) : 0.0; }

 private:
  void check(FixContext& c) {
    variable_ = resolve_force_components(comp_, c.styles, at_, "fix setforce " + id_, true);
  }
  ForceComponent comp_[3];
  SourcePos at_;
  bool variable_ = false;  // some component is a variable (LAMMPS's varflag)
  StepTally tally_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  ForceComponent comp[3];
  for (ForceComponent& k : comp) k = force_component_arg(f.a, "fix setforce", true);
  std::unique_ptr<FixSetforce> fix = std::make_unique<FixSetforce>(f, comp);
  while (!f.a.done()) {
    f.a.choice("a fix setforce keyword", {"region"});
    fix->set_region(region_arg(f.a, f.ctx.regions, "fix setforce"));
  }
  return fix;
}

}  // namespace

WMD_FIX_STYLE("setforce", make)

}  // namespace wmd::md
