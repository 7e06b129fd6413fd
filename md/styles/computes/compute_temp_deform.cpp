// compute temp/deform: the group's temperature after removing the streaming velocity a deforming box implies
// at each atom's place, v_stream = H_rate·λ + h_ratelo (λ: the atom's fractional coordinate; H_rate the upper
// triangular rate of the box matrix fix deform sets, Box::h_rate: on a triclinic box the tilt rates add
// ẋy·λy + ẋz·λz to x and ẏz·λz to y), dof = 3N − extra_dof, as LAMMPS compute temp/deform. The streaming
// velocity is its bias (thermostats and velocity commands leave it alone).
#include "md/styles/computes/temperature_compute.hpp"

namespace wmd::md {
namespace {

class ComputeTempDeform : public TemperatureCompute {
 public:
  using TemperatureCompute::TemperatureCompute;
  bool has_bias() const override { return true; }
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    update_dof(c);
    scalar_ = temperature(kinetic_sums(c.s, c.comm, kKineticScalar, InGroup{group_}, Thermal{c.s}).mv2);
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    const KineticSums k = kinetic_sums(c.s, c.comm, kKineticTensor, InGroup{group_}, Thermal{c.s});
    vector_.assign(k.tensor, k.tensor + 6);
  }
  // The bias of atom i: its streaming velocity, kept by atom index until restored.
  void remove_bias(State& s, size_t i) override {
    if (bias_.size() < 3 * s.atoms.size()) bias_.resize(3 * s.atoms.size());
    stream(s, i, &bias_[3 * i]);
    s.atoms.vx[i] -= bias_[3 * i], s.atoms.vy[i] -= bias_[3 * i + 1], s.atoms.vz[i] -= bias_[3 * i + 2];
  }
  void restore_bias(State& s, size_t i) override {
    s.atoms.vx[i] += bias_[3 * i], s.atoms.vy[i] += bias_[3 * i + 1], s.atoms.vz[i] += bias_[3 * i + 2];
  }

 private:
  // LAMMPS's x2lamda, then H_rate·λ + h_ratelo term by term (h_rate[3..5]: yz, xz, xy; zeros on an
  // orthogonal box, where the sums keep the orthogonal bits).
  static void stream(const State& s, size_t i, double out[3]) {
    const Box& b = s.box;
    const double* r = b.h_rate;
    const double x[3] = {s.atoms.x[i], s.atoms.y[i], s.atoms.z[i]};
    double l[3];
    b.to_lamda(x, l);
    out[0] = r[0] * l[0] + r[5] * l[1] + r[4] * l[2] + b.h_ratelo[0];
    out[1] = r[1] * l[1] + r[3] * l[2] + b.h_ratelo[1];
    out[2] = r[2] * l[2] + b.h_ratelo[2];
  }
  // The thermal velocity: v less the streaming velocity.
  struct Thermal {
    const State& s;
    void operator()(const Atoms& a, size_t i, double v[3]) const {
      double vs[3];
      stream(s, i, vs);
      v[0] = a.vx[i] - vs[0], v[1] = a.vy[i] - vs[1], v[2] = a.vz[i] - vs[2];
    }
  };
  std::vector<double> bias_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  c.a.finish();
  return std::make_unique<ComputeTempDeform>(c.id, c.style, c.group);
}

}  // namespace

WMD_COMPUTE_STYLE("temp/deform", make)

}  // namespace wmd::md
