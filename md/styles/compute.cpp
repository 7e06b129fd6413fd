// make_compute: the registry lookup, with the backend check every style shares.
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

}  // namespace wmd::md
