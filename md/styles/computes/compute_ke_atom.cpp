// compute ke/atom: each atom's kinetic energy ½·m·v² (eV), 0 outside the group, as LAMMPS.
#include "base/units.hpp"
#include "md/styles/compute.hpp"

namespace wmd::md {
namespace {

class ComputeKeAtom : public Compute {
 public:
  using Compute::Compute;
  OutputShape shape() const override { return {false, 0, 0, false}; }
  void compute_peratom(const ComputeContext& c) override {
    const Atoms& a = c.s.atoms;
    peratom_.assign(a.size(), 0.0);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group_)) continue;
      peratom_[i] = 0.5 * units::mvv2e * c.s.mass[a.type[i]] *
                    (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
    }
    invoked_peratom = c.s.step;
  }
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  c.a.finish();
  return std::make_unique<ComputeKeAtom>(c.id, c.style, c.group);
}

}  // namespace

WMD_COMPUTE_STYLE("ke/atom", make)

}  // namespace wmd::md
