// compute temp/partial xflag yflag zflag: the temperature of the velocity components whose flag is 1, dof =
// nper·N − (nper/3)·extra_dof; the other components are its bias (fix temp/rescale and velocity leave them
// alone), as LAMMPS compute temp/partial.
#include "md/styles/computes/temperature_compute.hpp"

namespace wmd::md {
namespace {

class ComputeTempPartial : public TemperatureCompute {
 public:
  ComputeTempPartial(const ComputeArgs& c, const int flag[3])
      : TemperatureCompute(c.id, c.style, c.group), flag_{flag[0], flag[1], flag[2]} {}
  bool has_bias() const override { return true; }
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    update_dof(c, flag_[0] + flag_[1] + flag_[2]);
    scalar_ = temperature(kinetic_sums(c.s, c.comm, kKineticScalar, InGroup{group_}, Thermal{flag_}).mv2);
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    const KineticSums k = kinetic_sums(c.s, c.comm, kKineticTensor, InGroup{group_}, Thermal{flag_});
    vector_.assign(k.tensor, k.tensor + 6);
  }
  // The bias of atom i: its components whose flag is 0, kept by atom index until restored.
  void remove_bias(State& s, size_t i) override {
    Atoms& a = s.atoms;
    if (bias_.size() < 3 * a.size()) bias_.resize(3 * a.size());
    std::vector<double>* v[3] = {&a.vx, &a.vy, &a.vz};
    for (int d = 0; d < 3; ++d) {
      bias_[3 * i + d] = flag_[d] ? 0.0 : (*v[d])[i];
      if (!flag_[d]) (*v[d])[i] = 0.0;
    }
  }
  void restore_bias(State& s, size_t i) override {
    Atoms& a = s.atoms;
    a.vx[i] += bias_[3 * i], a.vy[i] += bias_[3 * i + 1], a.vz[i] += bias_[3 * i + 2];
  }

 private:
  // The counted components (LAMMPS multiplies by the 0/1 flags; a zeroed component adds the same 0).
  struct Thermal {
    const int* flag;
    void operator()(const Atoms& a, size_t i, double v[3]) const {
      v[0] = flag[0] ? a.vx[i] : 0.0, v[1] = flag[1] ? a.vy[i] : 0.0, v[2] = flag[2] ? a.vz[i] : 0.0;
    }
  };
  int flag_[3];
  std::vector<double> bias_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  int flag[3];
  for (int d = 0; d < 3; ++d)
    flag[d] = static_cast<int>(c.a.integer(std::string("xyz").substr(d, 1) + "flag (0 or 1)", 0, 1));
  c.a.finish();
  return std::make_unique<ComputeTempPartial>(c, flag);
}

}  // namespace

WMD_COMPUTE_STYLE("temp/partial", make)

}  // namespace wmd::md
