// compute pe/atom: each atom's potential energy (eV), 0 outside the group. EAM has only the pair and
// embedding terms LAMMPS's `pair` keyword selects, so `pe/atom` and `pe/atom pair` are the same values.
#include "md/styles/compute.hpp"

namespace wmd::md {
namespace {

class ComputePeAtom : public Compute {
 public:
  using Compute::Compute;
  OutputShape shape() const override { return {false, 0, 0, false}; }
  bool needs_eatom() const override { return true; }
  void compute_peratom(const ComputeContext& c) override {
    const Atoms& a = c.s.atoms;
    peratom_.assign(a.size(), 0.0);
    const std::vector<double>* e = c.force ? &c.force->eatom : nullptr;
    for (size_t i = 0; i < a.size(); ++i) {
      if ((a.mask[i] & group_) && e && i < e->size()) peratom_[i] = (*e)[i];
    }
    invoked_peratom = c.s.step;
  }
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  while (!c.a.done()) c.a.choice("a pe/atom term", {"pair"});
  return std::make_unique<ComputePeAtom>(c.id, c.style, c.group);
}

}  // namespace

WMD_COMPUTE_STYLE("pe/atom", make)

}  // namespace wmd::md
