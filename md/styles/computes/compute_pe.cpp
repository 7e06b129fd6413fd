// compute pe: the potential energy of the system (eV, extensive) from the step's force computation, as
// LAMMPS compute pe with its default (pair) terms — EAM has no bond, kspace or fix energies here.
#include "md/styles/compute.hpp"

namespace wmd::md {
namespace {

class ComputePe : public Compute {
 public:
  using Compute::Compute;
  OutputShape shape() const override { return {true, 0, -1, true}; }
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    if (c.force && !c.force->tallied)
      throw RunError("compute " + id_ + " (pe) read at step " + std::to_string(c.s.step) +
                     ", whose energy was not summed (LAMMPS: \"Energy was not tallied on needed timestep\")");
    scalar_ = c.force ? c.force->energy : 0.0;
    return scalar_;
  }
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  if (c.group != 1u) c.a.fail("compute pe must use group all (as LAMMPS)");
  // LAMMPS's term keywords: pair is the EAM energy; the others are zero for EAM, and fix is not supported.
  while (!c.a.done())
    c.a.choice("a compute pe term", {"pair", "bond", "angle", "dihedral", "improper", "kspace"});
  return std::make_unique<ComputePe>(c.id, c.style, c.group);
}

}  // namespace

WMD_COMPUTE_STYLE("pe", make)

}  // namespace wmd::md
