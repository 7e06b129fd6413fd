// fix viscous gamma [scale type ratio]: the drag f −= γ·ratio(type)·v on the group's atoms after the forces
// and at the set-up (LAMMPS fix viscous).
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixViscous : public Fix {
 public:
  FixViscous(const FixArgs& f, std::vector<double> gamma)
      : Fix(f.id, f.style, f.group), gamma_(std::move(gamma)) {}
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
    Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double drag = gamma_[a.type[i]];
      a.fx[i] -= drag * a.vx[i], a.fy[i] -= drag * a.vy[i], a.fz[i] -= drag * a.vz[i];
    }
  }

 private:
  std::vector<double> gamma_;  // per type
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  const double gamma = f.a.non_negative("gamma (eV ps/Å²)");
  std::vector<double> per_type(f.ctx.s.ntypes + 1, gamma);
  while (!f.a.done()) {
    f.a.choice("a fix viscous keyword", {"scale"});
    const int t = static_cast<int>(f.a.integer("an atom type", 1, f.ctx.s.ntypes));
    per_type[t] = gamma * f.a.real("the scale ratio");
  }
  return std::make_unique<FixViscous>(f, per_type);
}

}  // namespace

WMD_FIX_STYLE("viscous", make)

}  // namespace wmd::md
