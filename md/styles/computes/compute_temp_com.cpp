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
    scalar_ = temperature(kinetic_sums(c.s, c.comm, kKineticScalar, InGroup{group_}, Thermal{vcm_}).mv2);
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    centre_of_mass_velocity(c);
    const KineticSums k = kinetic_sums(c.s, c.comm, kKineticTensor, InGroup{group_}, Thermal{vcm_});
    vector_.assign(k.tensor, k.tensor + 6);
  }
  // The bias is the centre-of-mass velocity of the last evaluation.
  void remove_bias(State& s, size_t i) override {
    s.atoms.vx[i] -= vcm_[0], s.atoms.vy[i] -= vcm_[1], s.atoms.vz[i] -= vcm_[2];
  }
  void restore_bias(State& s, size_t i) override {
    s.atoms.vx[i] += vcm_[0], s.atoms.vy[i] += vcm_[1], s.atoms.vz[i] += vcm_[2];
  }

 private:
  // The thermal velocity: v less the centre-of-mass velocity.
  struct Thermal {
    const double* vcm;
    void operator()(const Atoms& a, size_t i, double v[3]) const {
      v[0] = a.vx[i] - vcm[0], v[1] = a.vy[i] - vcm[1], v[2] = a.vz[i] - vcm[2];
    }
  };
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
