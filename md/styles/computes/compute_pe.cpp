// compute pe: the potential energy of the system (eV, extensive) from the step's force computation, as
// LAMMPS compute pe with its default terms: pair, and the fixes' energies `fix_modify energy yes` adds (EAM
// has no bond or kspace energies).
#include "md/styles/compute.hpp"

namespace wmd::md {
namespace {

class ComputePe : public Compute {
 public:
  ComputePe(const ComputeArgs& c, bool with_fixes)
      : Compute(c.id, c.style, c.group), with_fixes_(with_fixes) {}
  OutputShape shape() const override { return {true, 0, -1, true}; }
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    if (c.force && !c.force->tallied)
      throw RunError("compute " + id_ + " (pe) read at step " + std::to_string(c.s.step) +
                     ", whose energy was not summed (LAMMPS: \"Energy was not tallied on needed timestep\")");
    scalar_ = (c.force ? c.force->energy : 0.0) + (with_fixes_ && c.styles ? c.styles->fix_energy() : 0.0);
    return scalar_;
  }

 private:
  bool with_fixes_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  if (c.group != 1u) c.a.fail("compute pe must use group all (as LAMMPS)");
  // LAMMPS's term keywords: pair is the EAM energy, fix the fixes' energies; the others are zero for EAM.
  // Without keywords every term counts.
  bool with_fixes = c.a.done();
  while (!c.a.done())
    with_fixes = c.a.choice("a compute pe term",
                            {"pair", "bond", "angle", "dihedral", "improper", "kspace", "fix"}) == "fix" ||
                 with_fixes;
  return std::make_unique<ComputePe>(c, with_fixes);
}

}  // namespace

WMD_COMPUTE_STYLE("pe", make)

}  // namespace wmd::md
