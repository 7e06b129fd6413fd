// fix press/berendsen (LAMMPS semantics, end_of_step): box and atoms dilated about the box centre by
// [1 − dt/τ_P (P0 − P)/B]^(1/3) per barostatted dimension (B the bulk modulus, default 10 bar as LAMMPS).
#include <cmath>

#include "base/units.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixPressBerendsen : public Fix {
 public:
  FixPressBerendsen(const std::string& id, uint32_t group, bool iso, const double p0[3], const double p1[3],
                    const double per[3], const bool flag[3], double modulus)
      : Fix(id, "press/berendsen", group), iso_(iso), modulus_(modulus) {
    for (int d = 0; d < 3; ++d)
      p_start_[d] = p0[d], p_stop_[d] = p1[d], period_[d] = per[d], flag_[d] = flag[d];
  }

  bool changes_box() const override { return true; }
  void end_of_step(FixContext& c) override {
    double tensor[3];
    const double scalar = fix_pressure(c, tensor);
    const double delta = c.run_fraction();
    Box& b = c.s.box;
    double oldlo[3], oldprd[3], dil[3] = {1, 1, 1};
    for (int d = 0; d < 3; ++d) {
      oldlo[d] = b.lo[d], oldprd[d] = b.prd(d);
      if (!flag_[d]) continue;
      const double target = p_start_[d] + delta * (p_stop_[d] - p_start_[d]);
      const double current = iso_ ? scalar : tensor[d];
      dil[d] = std::cbrt(1.0 - c.s.dt / period_[d] * (target - current) / modulus_);
      const double ctr = 0.5 * (b.lo[d] + b.hi[d]);
      b.lo[d] = (oldlo[d] - ctr) * dil[d] + ctr;
      b.hi[d] = (oldlo[d] + oldprd[d] - ctr) * dil[d] + ctr;
    }
    Atoms& a = c.s.atoms;
    double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
    for (int d = 0; d < 3; ++d) {
      if (!flag_[d]) continue;
      const double inv = 1.0 / oldprd[d], prd = b.prd(d);
      for (size_t i = 0; i < a.size(); ++i) pos[d][i] = b.lo[d] + ((pos[d][i] - oldlo[d]) * inv) * prd;
    }
  }

 private:
  bool iso_;
  double p_start_[3] = {0, 0, 0}, p_stop_[3] = {0, 0, 0}, period_[3] = {1, 1, 1};
  bool flag_[3] = {false, false, false};
  double modulus_;
};

}  // namespace

static std::unique_ptr<Fix> make_fix_press_berendsen(const FixArgs& f) {
  const std::string& id = f.id;
  const uint32_t group = f.group;
  io::ArgCursor& a = f.a;
  double p0[3] = {0, 0, 0}, p1[3] = {0, 0, 0}, per[3] = {1, 1, 1}, modulus = 10.0;
  bool flag[3] = {false, false, false}, iso = false, any = false;
  while (!a.done()) {
    const std::string k = a.choice("a fix press/berendsen keyword",
                                   {"iso", "aniso", "x", "y", "z", "modulus", "dilate", "couple"});
    if (k == "modulus") {
      modulus = a.positive("the bulk modulus (bar)");
    } else if (k == "dilate") {
      a.choice("dilate", {"all"});
    } else if (k == "couple") {
      a.choice("couple", {"none", "xyz"});
    } else {
      const double s0 = a.real("Pstart (bar)"), s1 = a.real("Pstop (bar)"), pd = a.positive("Pdamp (ps)");
      const int lo = k == "y" ? 1 : k == "z" ? 2 : 0, hi = k == "x" ? 0 : k == "y" ? 1 : 2;
      for (int d = lo; d <= hi; ++d) p0[d] = s0, p1[d] = s1, per[d] = pd, flag[d] = true;
      iso = k == "iso";
      any = true;
    }
  }
  if (!any) a.fail("fix press/berendsen needs 'iso', 'aniso' or 'x/y/z Pstart Pstop Pdamp'");
  if (group != 1u) a.fail("fix press/berendsen must use group all (it dilates the whole box)");
  return std::make_unique<FixPressBerendsen>(id, group, iso, p0, p1, per, flag, modulus);
}

WMD_FIX_STYLE("press/berendsen", make_fix_press_berendsen)

}  // namespace wmd::md
