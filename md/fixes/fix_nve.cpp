// fix nve: velocity Verlet for a group, arithmetic identical to LAMMPS FixNVE.
#include "base/units.hpp"
#include "md/fixes/fix_styles.hpp"

namespace wmd::md {
namespace {

class FixNVE : public Fix {
 public:
  using Fix::Fix;
  bool integrates() const override { return true; }
  void initial_integrate(FixContext& c) override {
    Atoms& at = c.s.atoms;
    half_kick(c);
    const double dt = c.s.dt;
    for (size_t i = 0; i < at.size(); ++i) {
      if (!selected(c.s, i)) continue;
      at.x[i] += dt * at.vx[i];
      at.y[i] += dt * at.vy[i];
      at.z[i] += dt * at.vz[i];
    }
  }
  void final_integrate(FixContext& c) override { half_kick(c); }

 private:
  // v += ½dt·F/m
  void half_kick(FixContext& c) {
    Atoms& at = c.s.atoms;
    const double dtf = 0.5 * c.s.dt * units::ftm2v;
    for (size_t i = 0; i < at.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double dtfm = dtf / c.s.mass[at.type[i]];
      at.vx[i] += dtfm * at.fx[i];
      at.vy[i] += dtfm * at.fy[i];
      at.vz[i] += dtfm * at.fz[i];
    }
  }
};

}  // namespace

std::unique_ptr<Fix> make_fix_nve(const std::string& id, uint32_t group, io::ArgCursor& a) {
  a.finish();
  return std::make_unique<FixNVE>(id, "nve", group);
}

}  // namespace wmd::md
