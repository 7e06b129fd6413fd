// fix nve: velocity Verlet for a group, arithmetic identical to LAMMPS FixNVE.
#include <vector>

#include "base/units.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixNVE : public Fix {
 public:
  using Fix::Fix;
  bool integrates() const override { return true; }
  bool reads_energy() const override { return false; }
  void initial_integrate(FixContext& c) override {
    Atoms& at = c.s.atoms;
    const double* dtfm = kick_factors(c);
    const double dt = c.s.dt;
    // Kick and drift in one pass over the atoms, in LAMMPS's per-atom order.
    for (size_t i = 0; i < at.size(); ++i) {
      if (!selected(c.s, i)) continue;
      kick(at, i, dtfm[at.type[i]]);
      at.x[i] += dt * at.vx[i];
      at.y[i] += dt * at.vy[i];
      at.z[i] += dt * at.vz[i];
    }
  }
  void final_integrate(FixContext& c) override {
    Atoms& at = c.s.atoms;
    const double* dtfm = kick_factors(c);
    for (size_t i = 0; i < at.size(); ++i)
      if (selected(c.s, i)) kick(at, i, dtfm[at.type[i]]);
  }

 private:
  // ½dt/m per type for v += ½dt·F/m: the quotient LAMMPS forms per atom, formed once per type (a divide per
  // atom was most of this fix's time).
  const double* kick_factors(const FixContext& c) {
    const double dtf = 0.5 * c.s.dt * units::ftm2v;
    dtfm_.resize(c.s.mass.size());
    for (size_t t = 0; t < dtfm_.size(); ++t) dtfm_[t] = dtf / c.s.mass[t];
    return dtfm_.data();
  }
  // v += (½dt/m)·F for atom i.
  static void kick(Atoms& at, size_t i, double m) {
    at.vx[i] += m * at.fx[i];
    at.vy[i] += m * at.fy[i];
    at.vz[i] += m * at.fz[i];
  }
  std::vector<double> dtfm_;
};

}  // namespace

static std::unique_ptr<Fix> make_fix_nve(const FixArgs& f) {
  const std::string& id = f.id;
  const uint32_t group = f.group;
  io::ArgCursor& a = f.a;
  a.finish();
  return std::make_unique<FixNVE>(id, "nve", group);
}

WMD_FIX_STYLE("nve", make_fix_nve)

}  // namespace wmd::md
