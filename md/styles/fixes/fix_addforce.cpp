// fix addforce fx fy fz [every N] [region ID]: adds a constant force to the group's atoms after the forces
// (every N steps) and at the set-up; its scalar is −Σ f·x_unwrapped of the added force (the energy LAMMPS
// reports; `fix_modify energy yes` is refused), its vector the group's total force before the addition
// (LAMMPS fix addforce; extensive). Variable components are refused.
#include <optional>

#include "md/styles/fix.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

class FixAddforce : public Fix {
 public:
  FixAddforce(const FixArgs& f, const double value[3], int every)
      : Fix(f.id, f.style, f.group), value_{value[0], value[1], value[2]}, every_(every) {}
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  OutputShape shape() const override { return {true, 3, -1, true}; }

  void setup(FixContext& c) override { apply(c); }
  void post_force(FixContext& c) override {
    if (c.s.step % every_ == 0) apply(c);
  }
  bool scalar(double& v) const override {
    v = total(0);
    return true;
  }
  double vector_value(int i) const override { return i >= 0 && i < 3 ? total(i + 1) : 0.0; }

 private:
  void apply(FixContext& c) {
    Atoms& a = c.s.atoms;
    tally_.start(c.comm, 4);  // the energy −F·x, then the forces before the addition
    const double L[3] = {c.s.box.prd(0), c.s.box.prd(1), c.s.box.prd(2)};
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double u[3] = {a.x[i] + a.ix[i] * L[0], a.y[i] + a.iy[i] * L[1], a.z[i] + a.iz[i] * L[2]};
      tally_.add(0, -(value_[0] * u[0] + value_[1] * u[1] + value_[2] * u[2]));
      tally_.add(1, a.fx[i]), tally_.add(2, a.fy[i]), tally_.add(3, a.fz[i]);
      a.fx[i] += value_[0], a.fy[i] += value_[1], a.fz[i] += value_[2];
    }
    tally_.finish();
  }
  // Summed over ranks when first asked after a step (LAMMPS's force_flag): collective.
  double total(int k) const { return tally_.total(k); }
  double value_[3];
  int every_;
  StepTally tally_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  double value[3];
  for (double& v : value) {
    if (f.a.peek().rfind("v_", 0) == 0) f.a.fail("fix addforce: variable components are not supported");
    v = f.a.real("three force components (eV/Å)");
  }
  int every = 1;
  std::optional<Region> region;
  while (!f.a.done()) {
    const std::string k = f.a.choice("a fix addforce keyword", {"every", "region", "energy"});
    if (k == "every") {
      every = static_cast<int>(f.a.integer("every (steps)", 1, 2000000000));
    } else if (k == "region") {
      region = region_arg(f.a, f.ctx.regions, "fix addforce");
    } else {
      f.a.fail("fix addforce: the energy keyword (a variable) is not supported");
    }
  }
  auto fix = std::make_unique<FixAddforce>(f, value, every);
  if (region) fix->set_region(*region);
  return fix;
}

}  // namespace

WMD_FIX_STYLE("addforce", make)

}  // namespace wmd::md
