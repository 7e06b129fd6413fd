// compute temp: the group's kinetic temperature, dof = 3N − extra_dof (LAMMPS compute temp), and the kinetic
// energy tensor Σ m v_a v_b (eV; xx yy zz xy xz yz) as its vector.
#include "md/styles/computes/temperature_compute.hpp"

namespace wmd::md {
namespace {

class ComputeTemp : public TemperatureCompute {
 public:
  using TemperatureCompute::TemperatureCompute;
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    update_dof(c);
    scalar_ = temperature(group_mv2(c.s, c.comm, group_));
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    vector_.resize(6);
    kinetic_tensor(c.s, c.comm, group_, vector_.data());
  }
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  c.a.finish();
  return std::make_unique<ComputeTemp>(c.id, c.style, c.group);
}

}  // namespace

WMD_COMPUTE_STYLE("temp", make)

}  // namespace wmd::md
