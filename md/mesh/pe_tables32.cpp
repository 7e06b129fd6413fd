// The fp32 tables and image offsets the PE kernels (pe_kernels32.cpp) read: the EAM splines rounded to
// float and packed per type pair and knot, so a neighbour's knot is one record.
#include "md/mesh/pe_kernels32.hpp"

namespace wmd::md::mesh {

PeTables32 make_pe_tables32(const potentials::EamTables& t) {
  PeTables32 p;
  p.scalar = make_float_tables(t);
  const FloatTables& f = p.scalar;
  p.ntypes = t.ntypes, p.nr = t.nr, p.rdr = f.rdr, p.cutsq = f.cutsq;
  const size_t knots = static_cast<size_t>(t.nr) + 1, pairs = static_cast<size_t>(t.ntypes) * t.ntypes;
  p.dens.assign(pairs * knots * 4, 0.0f);
  p.force.assign(pairs * knots * 16, 0.0f);
  for (int i = 1; i <= t.ntypes; ++i) {
    for (int j = 1; j <= t.ntypes; ++j) {
      const size_t pair = static_cast<size_t>(i - 1) * t.ntypes + (j - 1);
      for (size_t m = 0; m < knots; ++m) {
        const int mm = static_cast<int>(m);
        float* d = &p.dens[(pair * knots + m) * 4];
        const float* rji = f.rhor_knot(f.rho_array(j, i), mm);
        for (int c = 0; c < 4; ++c) d[c] = rji[3 + c];
        float* r = &p.force[(pair * knots + m) * 16];
        const float* z = f.z2r_knot(f.z2r_array(i, j), mm);
        const float* rij = f.rhor_knot(f.rho_array(i, j), mm);
        for (int c = 0; c < 7; ++c) r[c] = z[c];
        for (int c = 0; c < 3; ++c) r[7 + c] = rij[c], r[10 + c] = rji[c];
      }
    }
  }
  return p;
}

ShiftOffsets32 make_shift_offsets32(const double L[3]) {
  ShiftOffsets32 s{};
  for (int code = 0; code < 27; ++code) {
    const int sh[3] = {code % 3 - 1, (code / 3) % 3 - 1, code / 9 - 1};
    // Exactly float(shift)·float(L), as pe_delta computes it.
    for (int d = 0; d < 3; ++d) s.v[d][code] = static_cast<float>(sh[d]) * static_cast<float>(L[d]);
  }
  return s;
}

}  // namespace wmd::md::mesh
