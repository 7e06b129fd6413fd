// make_fix (the registry lookup), the temperature compute a thermostat or barostat makes for itself, and the
// group sums fixes share (through TermSum: exact at any rank count in deterministic mode).
#include "md/styles/fix.hpp"

#include "md/core/unwrapped_position.hpp"

namespace wmd::md {

std::unique_ptr<Fix> make_fix(const FixArgs& f) {
  const FixStyle* style = FixRegistry::get().find(f.style);
  if (!style)
    f.a.fail("fix style '" + f.style + "' is not supported (supported: " + FixRegistry::get().name_list() +
             ")");
  std::unique_ptr<Fix> fix = style->make(f);
  if (!(fix->backends() & backend_bit(f.ctx.backend)))
    f.a.fail("fix style '" + f.style + "' cannot run on the " + f.ctx.backend + " backend (docs/input.md)");
  return fix;
}

std::unique_ptr<Compute> make_own_temperature(const FixArgs& f) {
  const io::Command none{"fix", {}, SourcePos{"fix " + f.id, 0}, ""};
  io::ArgCursor no_args(none);
  ComputeBuildContext cc{f.ctx.s, f.ctx.regions, f.ctx.backend};
  const std::string id = f.id + "_temp", style = "temp";
  return make_compute(ComputeArgs{id, f.group, style, no_args, cc});
}

double group_xcm(const FixContext& c, uint32_t group, double xcm[3]) {
  const Atoms& a = c.s.atoms;
  TermSum sum(c.comm, 4);  // Σ m x, Σ m y, Σ m z, Σ m
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = c.s.mass[a.type[i]];
    double u[3];
    unwrapped_position(c.s, i, u);  // LAMMPS's domain->unmap
    sum.add(0, u[0] * m);
    sum.add(1, u[1] * m);
    sum.add(2, u[2] * m);
    sum.add(3, m);
  }
  const std::vector<double> t = sum.total();
  for (int d = 0; d < 3; ++d) xcm[d] = t[3] > 0.0 ? t[d] / t[3] : 0.0;
  return t[3];
}

}  // namespace wmd::md
