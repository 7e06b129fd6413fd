// fix setforce fx fy fz [region ID]: sets the force components of the group's atoms (NULL leaves one alone)
// after the forces of each step and at the run's set-up; its vector is the total force the atoms had before
// (LAMMPS fix setforce, f_ID[1..3], extensive).
#include "md/styles/fix.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

class FixSetforce : public Fix {
 public:
  FixSetforce(const FixArgs& f, const bool set[3], const double value[3])
      : Fix(f.id, f.style, f.group), set_{set[0], set[1], set[2]}, value_{value[0], value[1], value[2]} {}
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  OutputShape shape() const override { return {false, 3, -1, true}; }

  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
    Atoms& a = c.s.atoms;
    std::vector<double>* f[3] = {&a.fx, &a.fy, &a.fz};
    tally_.start(c.comm, 3);  // the forces before they are set
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      for (int d = 0; d < 3; ++d) {
        tally_.add(d, (*f[d])[i]);
        if (set_[d]) (*f[d])[i] = value_[d];
      }
    }
    tally_.finish();
  }
  // The sum over ranks when first asked after a step (LAMMPS's force_flag): collective.
  double vector_value(int i) const override { return i >= 0 && i < 3 ? tally_.total(i) : 0.0; }

 private:
  bool set_[3];
  double value_[3];
  StepTally tally_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  bool set[3];
  double value[3];
  force_components_arg(f.a, "fix setforce", set, value);
  std::unique_ptr<FixSetforce> fix = std::make_unique<FixSetforce>(f, set, value);
  while (!f.a.done()) {
    f.a.choice("a fix setforce keyword", {"region"});
    fix->set_region(region_arg(f.a, f.ctx.regions, "fix setforce"));
  }
  return fix;
}

}  // namespace

WMD_FIX_STYLE("setforce", make)

}  // namespace wmd::md
