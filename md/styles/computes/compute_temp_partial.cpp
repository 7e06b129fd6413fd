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
    const Atoms& a = c.s.atoms;
    TermSum sum(c.comm, 1);
    for (size_t i = 0; i < a.size(); ++i)
      if (in_group(a, i))
        sum.add(0,
                (flag_[0] * a.vx[i] * a.vx[i] + flag_[1] * a.vy[i] * a.vy[i] + flag_[2] * a.vz[i] * a.vz[i]) *
                    c.s.mass[a.type[i]]);
    scalar_ = temperature(sum.total()[0]);
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    const Atoms& a = c.s.atoms;
    TermSum sum(c.comm, 6);
    const int fx = flag_[0], fy = flag_[1], fz = flag_[2];
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      const double m = c.s.mass[a.type[i]];
      sum.add(0, fx * m * a.vx[i] * a.vx[i]);
      sum.add(1, fy * m * a.vy[i] * a.vy[i]);
      sum.add(2, fz * m * a.vz[i] * a.vz[i]);
      sum.add(3, fx * fy * m * a.vx[i] * a.vy[i]);
      sum.add(4, fx * fz * m * a.vx[i] * a.vz[i]);
      sum.add(5, fy * fz * m * a.vy[i] * a.vz[i]);
    }
    vector_ = sum.total();
    for (double& v : vector_) v *= units::mvv2e;
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
