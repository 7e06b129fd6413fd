// make_compute (the registry lookup, with the backend check every style shares) and the invocation rule of
// references.
#include "md/styles/compute.hpp"

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

}  // namespace wmd::md
