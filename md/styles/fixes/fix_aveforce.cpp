// fix aveforce fx|NULL fy|NULL fz|NULL [region ID], as LAMMPS's fix aveforce: every atom of the group gets
// the group's average force plus the given value in each set component (NULL leaves one alone), after the
// forces and at the set-up; a value may be v_name of an equal-style variable, evaluated then. Its vector is
// the group's total force before (extensive).
#include "md/styles/fix.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

class FixAveforce : public Fix {
 public:
  FixAveforce(const FixArgs& f, const ForceComponent (&comp)[3])
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
    TermSum terms(c.comm, 4);  // Σ f, count
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      terms.add(0, a.fx[i]), terms.add(1, a.fy[i]), terms.add(2, a.fz[i]), terms.add(3, 1.0);
    }
    const std::vector<double> sum = terms.total();
    for (int d = 0; d < 3; ++d) total_[d] = sum[d];
    const int n = static_cast<int>(sum[3]);
    if (n == 0) return;
    // LAMMPS evaluates the variables only when the group has atoms here.
    if (variable_) evaluate_force_components(comp_, *c.styles, at_);
    double ave[3];
    for (int d = 0; d < 3; ++d) ave[d] = sum[d] / n + comp_[d].value;
    std::vector<double>* f[3] = {&a.fx, &a.fy, &a.fz};
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      for (int d = 0; d < 3; ++d)
        if (comp_[d].set()) (*f[d])[i] = ave[d];
    }
  }
  double vector_value(int i) const override { return i >= 0 && i < 3 ? total_[i] : 0.0; }

 private:
  void check(FixContext& c) {
    variable_ = resolve_force_components(comp_, c.styles, at_, "fix aveforce " + id_, false);
  }
  ForceComponent comp_[3];
  SourcePos at_;
  bool variable_ = false;  // some component is an equal-style variable (LAMMPS's varflag)
  double total_[3] = {0, 0, 0};
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  ForceComponent comp[3];
  for (ForceComponent& k : comp) k = force_component_arg(f.a, "fix aveforce", true);
  auto fix = std::make_unique<FixAveforce>(f, comp);
  while (!f.a.done()) {
    f.a.choice("a fix aveforce keyword", {"region"});
    fix->set_region(region_arg(f.a, f.ctx.regions, "fix aveforce"));
  }
  return fix;
}

}  // namespace

WMD_FIX_STYLE("aveforce", make)

}  // namespace wmd::md
