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
    scalar_ = group_mv2(c.s, c.comm, group_) * (0.5 * units::mvv2e);
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
