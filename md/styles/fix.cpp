// make_fix (the registry lookup) and the global quantities fixes share: group temperature and pressure,
// summed over ranks through the Comm.
#include "md/styles/fix.hpp"

#include "base/units.hpp"

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
  const double L[3] = {c.s.box.prd(0), c.s.box.prd(1), c.s.box.prd(2)};
  double local[4] = {0.0, 0.0, 0.0, 0.0};  // Σ m x, Σ m y, Σ m z, Σ m
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = c.s.mass[a.type[i]];
    local[0] += (a.x[i] + a.ix[i] * L[0]) * m;
    local[1] += (a.y[i] + a.iy[i] * L[1]) * m;
    local[2] += (a.z[i] + a.iz[i] * L[2]) * m;
    local[3] += m;
  }
  c.comm.sum(local, 4);
  for (int d = 0; d < 3; ++d) xcm[d] = local[3] > 0.0 ? local[d] / local[3] : 0.0;
  return local[3];
}

int64_t averaging_next_valid(int64_t step, int64_t nevery, int64_t nrepeat, int64_t nfreq, int64_t start) {
  int64_t nvalid = (step / nfreq) * nfreq + nfreq;
  while (nvalid < start) nvalid += nfreq;
  if (nvalid - nfreq == step && nrepeat == 1)
    nvalid = step;
  else
    nvalid -= (nrepeat - 1) * nevery;
  if (nvalid < step) nvalid += nfreq;
  return nvalid;
}

double fix_pressure(const FixContext& c, double ptensor[3]) {
  const Atoms& a = c.s.atoms;
  double ke[4] = {0.0, 0.0, 0.0, 0.0};  // Σ m vx², Σ m vy², Σ m vz², count
  for (size_t i = 0; i < a.size(); ++i) {
    const double m = c.s.mass[a.type[i]];
    ke[0] += m * a.vx[i] * a.vx[i];
    ke[1] += m * a.vy[i] * a.vy[i];
    ke[2] += m * a.vz[i] * a.vz[i];
    ke[3] += 1.0;
  }
  c.comm.sum(ke, 4);
  const double vol = c.s.box.volume();
  const double* w = c.force ? c.force->virial : nullptr;
  const double dof = 3.0 * ke[3] - 3.0;
  const double sum_mv2 = (ke[0] + ke[1] + ke[2]) * units::mvv2e;
  // Scalar pressure as LAMMPS compute pressure with compute temp (dof 3N − 3).
  const double t = dof > 0 ? sum_mv2 / (dof * units::boltz) : 0.0;
  const double wsum = w ? w[0] + w[1] + w[2] : 0.0;
  for (int d = 0; d < 3; ++d) ptensor[d] = (ke[d] * units::mvv2e + (w ? w[d] : 0.0)) / vol * units::nktv2p;
  return (dof * units::boltz * t + wsum) / (3.0 * vol) * units::nktv2p;
}

}  // namespace wmd::md
