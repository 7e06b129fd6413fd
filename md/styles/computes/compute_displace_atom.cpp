// compute displace/atom: each group atom's displacement (dx dy dz |d|, Å) from its unwrapped position when
// the compute was defined, as LAMMPS compute displace/atom (a per-atom array of 4 columns; 0 outside the
// group).
#include <cmath>

#include "md/styles/compute.hpp"
#include "md/styles/computes/reference_positions.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class ComputeDisplaceAtom : public Compute {
 public:
  using Compute::Compute;
  OutputShape shape() const override { return {false, 0, 4, false}; }
  ReferencePositions& reference() { return ref_; }
  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    const Atoms& a = c.s.atoms;
    peratom_.assign(4 * a.size(), 0.0);
    for (size_t i = 0; i < a.size(); ++i) {
      const std::array<double, 3>* r = in_group(a, i) ? ref_.find(a.id[i]) : nullptr;
      if (!r) continue;
      const auto u = ReferencePositions::unwrapped(c.s, i);
      const double dx = u[0] - (*r)[0], dy = u[1] - (*r)[1], dz = u[2] - (*r)[2];
      double* out = &peratom_[4 * i];
      out[0] = dx, out[1] = dy, out[2] = dz, out[3] = std::sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  void save_state(NamedArrays& out) const override { ref_.save(out); }
  void restore_state(const NamedArrays& in) override { ref_.restore(FixStateReader(in, *this)); }
  bool keeps_restart_state() const override { return true; }

 private:
  ReferencePositions ref_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  if (!c.a.done() && c.a.peek() == "refresh") c.a.fail("compute displace/atom: 'refresh' is not supported");
  c.a.finish();
  auto cp = std::make_unique<ComputeDisplaceAtom>(c.id, c.style, c.group);
  if (c.ctx.comm) cp->reference().take(c.ctx.s, *c.ctx.comm, c.group);
  return cp;
}

}  // namespace

WMD_COMPUTE_STYLE("displace/atom", make)

}  // namespace wmd::md
