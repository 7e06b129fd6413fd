// compute temp/region REGION: the temperature of the group's atoms inside the region, counted afresh at each
// evaluation (dof = 3·count − extra_dof); atoms outside are its bias, as LAMMPS compute temp/region.
#include "md/styles/computes/temperature_compute.hpp"
#include "md/styles/style_args.hpp"

namespace wmd::md {
namespace {

class ComputeTempRegion : public TemperatureCompute {
 public:
  ComputeTempRegion(const ComputeArgs& c, Region r)
      : TemperatureCompute(c.id, c.style, c.group), region_(std::move(r)) {}
  bool has_bias() const override { return true; }
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    const Atoms& a = c.s.atoms;
    const auto inside = [this](const Atoms& at, size_t i) { return this->inside(at, i); };
    const double t = kinetic_sums(c.s, c.comm, kKineticScalar, inside).mv2;
    int64_t count = 0;
    for (size_t i = 0; i < a.size(); ++i) count += inside(a, i) ? 1 : 0;
    natoms_temp_ = static_cast<double>(c.comm.sum(count));
    dof_ = 3.0 * natoms_temp_ - extra_dof_;
    scalar_ = dof_ > 0.0 ? units::mvv2e * t / (dof_ * units::boltz) : 0.0;
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    const auto inside = [this](const Atoms& at, size_t i) { return this->inside(at, i); };
    const KineticSums k = kinetic_sums(c.s, c.comm, kKineticTensor, inside);
    vector_.assign(k.tensor, k.tensor + 6);
  }
  // Atoms outside the region carry all their velocity as bias.
  void remove_bias(State& s, size_t i) override {
    Atoms& a = s.atoms;
    if (bias_.size() < 3 * a.size()) bias_.resize(3 * a.size());
    const bool in = region_.match(a.x[i], a.y[i], a.z[i]);
    bias_[3 * i] = in ? 0.0 : a.vx[i], bias_[3 * i + 1] = in ? 0.0 : a.vy[i],
              bias_[3 * i + 2] = in ? 0.0 : a.vz[i];
    if (!in) a.vx[i] = a.vy[i] = a.vz[i] = 0.0;
  }
  void restore_bias(State& s, size_t i) override {
    Atoms& a = s.atoms;
    a.vx[i] += bias_[3 * i], a.vy[i] += bias_[3 * i + 1], a.vz[i] += bias_[3 * i + 2];
  }

 private:
  bool inside(const Atoms& a, size_t i) const {
    return in_group(a, i) && region_.match(a.x[i], a.y[i], a.z[i]);
  }
  Region region_;
  std::vector<double> bias_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  const Region& region = region_arg(c.a, c.ctx.regions, "compute temp/region");
  c.a.finish();
  if (region.dynamic()) c.a.fail("compute temp/region: moving or variable regions are not supported");
  return std::make_unique<ComputeTempRegion>(c, region);
}

}  // namespace

WMD_COMPUTE_STYLE("temp/region", make)

}  // namespace wmd::md
