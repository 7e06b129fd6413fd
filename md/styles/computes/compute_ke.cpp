// compute ke: the group's kinetic energy ½ Σ m v² (eV, extensive), as LAMMPS compute ke (which, unlike the
// thermo keyword, does not go through a temperature's degrees of freedom).
#include "base/units.hpp"
#include "md/styles/compute.hpp"

namespace wmd::md {
namespace {

class ComputeKe : public Compute {
 public:
  using Compute::Compute;
  OutputShape shape() const override { return {true, 0, -1, true}; }
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    const Atoms& a = c.s.atoms;
    TermSum sum(c.comm, 1);
    for (size_t i = 0; i < a.size(); ++i)
      if (in_group(a, i))
        sum.add(0, c.s.mass[a.type[i]] * (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]));
    scalar_ = sum.total()[0] * (0.5 * units::mvv2e);
    return scalar_;
  }
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  c.a.finish();
  return std::make_unique<ComputeKe>(c.id, c.style, c.group);
}

}  // namespace

WMD_COMPUTE_STYLE("ke", make)

}  // namespace wmd::md
