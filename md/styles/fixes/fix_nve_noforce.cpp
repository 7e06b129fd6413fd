// fix nve/noforce: positions advance with the velocities, x += dt·v, which no force changes, as LAMMPS (atoms
// moved at a constant velocity, e.g. the walls of a shear or indentation set-up).
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixNveNoforce : public Fix {
 public:
  using Fix::Fix;
  bool integrates() const override { return true; }
  bool reads_energy() const override { return false; }
  void initial_integrate(FixContext& c) override {
    Atoms& a = c.s.atoms;
    const double dt = c.s.dt;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      a.x[i] += dt * a.vx[i], a.y[i] += dt * a.vy[i], a.z[i] += dt * a.vz[i];
    }
  }
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  f.a.finish();
  return std::make_unique<FixNveNoforce>(f.id, f.style, f.group);
}

}  // namespace

WMD_FIX_STYLE("nve/noforce", make)

}  // namespace wmd::md
