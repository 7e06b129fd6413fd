// fix aveforce fx|NULL fy|NULL fz|NULL [region ID]: every atom of the group gets the group's average force
// plus the given value in each set component (NULL leaves one alone), after the forces and at the set-up; its
// vector is the group's total force before (LAMMPS fix aveforce; extensive). Variable components are refused.
#include "md/styles/fix.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

class FixAveforce : public Fix {
 public:
  FixAveforce(const FixArgs& f, const bool set[3], const double value[3])
      : Fix(f.id, f.style, f.group), set_{set[0], set[1], set[2]}, value_{value[0], value[1], value[2]} {}
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  OutputShape shape() const override { return {false, 3, -1, true}; }

  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
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
    const double ave[3] = {sum[0] / n + value_[0], sum[1] / n + value_[1], sum[2] / n + value_[2]};
    std::vector<double>* f[3] = {&a.fx, &a.fy, &a.fz};
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      for (int d = 0; d < 3; ++d)
        if (set_[d]) (*f[d])[i] = ave[d];
    }
  }
  double vector_value(int i) const override { return i >= 0 && i < 3 ? total_[i] : 0.0; }

 private:
  bool set_[3];
  double value_[3];
  double total_[3] = {0, 0, 0};
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  bool set[3];
  double value[3];
  force_components_arg(f.a, "fix aveforce", set, value);
  auto fix = std::make_unique<FixAveforce>(f, set, value);
  while (!f.a.done()) {
    f.a.choice("a fix aveforce keyword", {"region"});
    fix->set_region(region_arg(f.a, f.ctx.regions, "fix aveforce"));
  }
  return fix;
}

}  // namespace

WMD_FIX_STYLE("aveforce", make)

}  // namespace wmd::md
