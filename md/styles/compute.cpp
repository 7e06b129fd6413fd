// make_compute (the registry lookup, with the backend check every style shares), the invocation rule of
// references, and the kinetic tensor several computes share.
#include "md/styles/compute.hpp"

#include "base/units.hpp"

namespace wmd::md {

std::unique_ptr<Compute> make_compute(const ComputeArgs& c) {
  const ComputeStyle* style = ComputeRegistry::get().find(c.style);
  if (!style)
    c.a.fail("compute style '" + c.style +
             "' is not supported (supported: " + ComputeRegistry::get().name_list() + ")");
  std::unique_ptr<Compute> compute = style->make(c);
  if (!(compute->backends() & backend_bit(c.ctx.backend)))
    c.a.fail("compute style '" + c.style + "' cannot run on the " + c.ctx.backend +
             " backend (docs/input.md)");
  return compute;
}

double invoke_scalar(Compute& c, const ComputeContext& ctx) {
  if (!(c.invoked_flag & Compute::kInvokedScalar)) {
    c.compute_scalar(ctx);
    c.invoked_flag |= Compute::kInvokedScalar;
  }
  return c.scalar();
}

const std::vector<double>& invoke_vector(Compute& c, const ComputeContext& ctx) {
  if (!(c.invoked_flag & Compute::kInvokedVector)) {
    c.compute_vector(ctx);
    c.invoked_flag |= Compute::kInvokedVector;
  }
  return c.vector();
}

const std::vector<double>& invoke_array(Compute& c, const ComputeContext& ctx) {
  if (!(c.invoked_flag & Compute::kInvokedArray)) {
    c.compute_array(ctx);
    c.invoked_flag |= Compute::kInvokedArray;
  }
  return c.array();
}

const std::vector<double>& invoke_peratom(Compute& c, const ComputeContext& ctx) {
  if (!(c.invoked_flag & Compute::kInvokedPeratom)) {
    c.compute_peratom(ctx);
    c.invoked_flag |= Compute::kInvokedPeratom;
  }
  return c.peratom();
}

const std::vector<double>& invoke_local(Compute& c, const ComputeContext& ctx) {
  if (!(c.invoked_flag & Compute::kInvokedLocal)) {
    c.compute_local(ctx);
    c.invoked_flag |= Compute::kInvokedLocal;
  }
  return c.local();
}

void kinetic_tensor(const State& s, const Comm& comm, uint32_t group, double t[6]) {
  const Atoms& a = s.atoms;
  TermSum sum(comm, 6);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = s.mass[a.type[i]];
    sum.add(0, m * a.vx[i] * a.vx[i]);
    sum.add(1, m * a.vy[i] * a.vy[i]);
    sum.add(2, m * a.vz[i] * a.vz[i]);
    sum.add(3, m * a.vx[i] * a.vy[i]);
    sum.add(4, m * a.vx[i] * a.vz[i]);
    sum.add(5, m * a.vy[i] * a.vz[i]);
  }
  const std::vector<double> tot = sum.total();
  for (int k = 0; k < 6; ++k) t[k] = tot[k] * units::mvv2e;
}

}  // namespace wmd::md
