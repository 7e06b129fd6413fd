// compute temp/com: the group's temperature after removing its centre-of-mass velocity (the bias), dof =
// 3N − extra_dof, as LAMMPS compute temp/com.
#include "md/styles/computes/temperature_compute.hpp"

namespace wmd::md {
namespace {

class ComputeTempCom : public TemperatureCompute {
 public:
  using TemperatureCompute::TemperatureCompute;
  bool has_bias() const override { return true; }
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    update_dof(c);
    centre_of_mass_velocity(c);
    const Atoms& a = c.s.atoms;
    TermSum sum(c.comm, 1);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      const double vx = a.vx[i] - vcm_[0], vy = a.vy[i] - vcm_[1], vz = a.vz[i] - vcm_[2];
      sum.add(0, (vx * vx + vy * vy + vz * vz) * c.s.mass[a.type[i]]);
    }
    scalar_ = temperature(sum.total()[0]);
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    centre_of_mass_velocity(c);
    const Atoms& a = c.s.atoms;
    TermSum sum(c.comm, 6);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      const double m = c.s.mass[a.type[i]];
      const double v[3] = {a.vx[i] - vcm_[0], a.vy[i] - vcm_[1], a.vz[i] - vcm_[2]};
      sum.add(0, m * v[0] * v[0]), sum.add(1, m * v[1] * v[1]), sum.add(2, m * v[2] * v[2]);
      sum.add(3, m * v[0] * v[1]), sum.add(4, m * v[0] * v[2]), sum.add(5, m * v[1] * v[2]);
    }
    vector_ = sum.total();
    for (double& v : vector_) v *= units::mvv2e;
  }
  // The bias is the centre-of-mass velocity of the last evaluation.
  void remove_bias(State& s, size_t i) override {
    s.atoms.vx[i] -= vcm_[0], s.atoms.vy[i] -= vcm_[1], s.atoms.vz[i] -= vcm_[2];
  }
  void restore_bias(State& s, size_t i) override {
    s.atoms.vx[i] += vcm_[0], s.atoms.vy[i] += vcm_[1], s.atoms.vz[i] += vcm_[2];
  }

 private:
  // LAMMPS's group->vcm: Σ m v / Σ m over the group (two sums through the Comm).
  void centre_of_mass_velocity(const ComputeContext& c) {
    const Atoms& a = c.s.atoms;
    TermSum mass(c.comm, 1), p(c.comm, 3);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      const double m = c.s.mass[a.type[i]];
      mass.add(0, m);
      p.add(0, a.vx[i] * m), p.add(1, a.vy[i] * m), p.add(2, a.vz[i] * m);
    }
    const double mt = mass.total()[0];
    const std::vector<double> pt = p.total();
    for (int d = 0; d < 3; ++d) vcm_[d] = mt > 0.0 ? pt[d] / mt : 0.0;
  }
  double vcm_[3] = {0.0, 0.0, 0.0};
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  c.a.finish();
  return std::make_unique<ComputeTempCom>(c.id, c.style, c.group);
}

}  // namespace

WMD_COMPUTE_STYLE("temp/com", make)

}  // namespace wmd::md
