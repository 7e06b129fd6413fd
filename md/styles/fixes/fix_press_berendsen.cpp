// fix press/berendsen (LAMMPS semantics, end_of_step): box and atoms dilated about the box centre by
// [1 − dt/τ_P (P0 − P)/B]^(1/3) per barostatted dimension (B the bulk modulus, default 10 bar as LAMMPS).
// P is LAMMPS's compute pressure on the fix's own compute temp of all atoms (`ID_temp`, its dof counted at
// the run's set-up; `fix_modify ID temp cID` names another): the scalar with iso, the tensor otherwise.
#include <cmath>

#include "md/styles/fixes/thermostat_temperature.hpp"

namespace wmd::md {
namespace {

class FixPressBerendsen : public Fix {
 public:
  unsigned box_components() const override {
    return (flag_[0] ? 1u : 0u) | (flag_[1] ? 2u : 0u) | (flag_[2] ? 4u : 0u);
  }
  FixPressBerendsen(const FixArgs& f, bool iso, const double p0[3], const double p1[3], const double per[3],
                    const bool flag[3], double modulus)
      : Fix(f.id, "press/berendsen", f.group),
        iso_(iso),
        modulus_(modulus),
        temperature_(f),
        pos_(f.a.pos()) {
    for (int d = 0; d < 3; ++d)
      p_start_[d] = p0[d], p_stop_[d] = p1[d], period_[d] = per[d], flag_[d] = flag[d];
  }

  bool changes_box() const override { return true; }
  bool modify_param(const std::string& key, io::ArgCursor& a, const StyleLookup& styles) override {
    return temperature_.modify_param(key, a, styles);
  }
  // LAMMPS's FixPressBerendsen::init refuses a triclinic box at each run's set-up (the box may have become
  // triclinic after the fix was defined): the input's error, at the fix's command.
  void init(FixContext& c) override {
    if (c.s.box.triclinic)
      throw InputError(pos_.file, pos_.line,
                       "Cannot use fix press/berendsen with triclinic box (fix " + id_ + ", LAMMPS's error)");
  }
  void setup(FixContext& c) override { temperature_.setup(c); }
  void end_of_step(FixContext& c) override {
    Compute& t = temperature_.get(c);
    const ComputeContext cc = c.compute_context();
    const double volume = c.s.box.volume();
    double current[3];
    if (iso_) {
      const double temp = t.compute_scalar(cc);  // first: it counts the dof
      const double p = pressure_scalar(t.dof(), temp, c.force->virial, volume);
      current[0] = current[1] = current[2] = p;
    } else {
      t.compute_vector(cc);
      double p[6];
      pressure_tensor(t.vector().data(), c.force->virial, volume, p);
      for (int d = 0; d < 3; ++d) current[d] = p[d];
    }
    const double delta = c.run_fraction();
    Box& b = c.s.box;
    double oldlo[3], oldprd[3], dil[3] = {1, 1, 1};
    for (int d = 0; d < 3; ++d) {
      oldlo[d] = b.lo[d], oldprd[d] = b.prd(d);
      if (!flag_[d]) continue;
      const double target = p_start_[d] + delta * (p_stop_[d] - p_start_[d]);
      dil[d] =
          std::pow(1.0 - c.s.dt / period_[d] * (target - current[d]) / modulus_, 1.0 / 3.0);  // as LAMMPS
      const double oldhi = b.hi[d], ctr = 0.5 * (oldlo[d] + oldhi);
      b.lo[d] = (oldlo[d] - ctr) * dil[d] + ctr;
      b.hi[d] = (oldhi - ctr) * dil[d] + ctr;
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
  ThermostatTemperature temperature_;  // LAMMPS's ID_temp (group all), or the compute fix_modify temp names
  SourcePos pos_;                      // the fix command's line, for the refusal at a run's set-up
};

}  // namespace

static std::unique_ptr<Fix> make_fix_press_berendsen(const FixArgs& f) {
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
  return std::make_unique<FixPressBerendsen>(f, iso, p0, p1, per, flag, modulus);
}

WMD_FIX_STYLE("press/berendsen", make_fix_press_berendsen)

}  // namespace wmd::md
