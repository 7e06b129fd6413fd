// fp32 PE arithmetic: the EAM tables rounded to float and the per-atom kernels of md/eam_atom_kernels.hpp
// instantiated in float (the same order of operations), as the wafer's cores compute.
#pragma once
#include <cmath>
#include <vector>

#include "md/force/eam_atom_kernels.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md::mesh {

/// EamTables with every coefficient in float (fp32 tables in PE memory).
struct FloatTables {
  int ntypes = 0, nrho = 0, nr = 0;
  float rdr = 0, rdrho = 0, rhomax = 0, cutsq = 0;
  std::vector<float> frho, rhor, z2r;
  std::vector<int> type2frho, type2rhor, type2z2r;
  potentials::ZblTermT<float> zbl;  // the ZBL pair term in fp32 (inactive for plain EAM)
  const float* frho_knot(int a, int m) const { return &frho[(static_cast<size_t>(a) * (nrho + 1) + m) * 7]; }
  const float* rhor_knot(int a, int m) const { return &rhor[(static_cast<size_t>(a) * (nr + 1) + m) * 7]; }
  const float* z2r_knot(int a, int m) const { return &z2r[(static_cast<size_t>(a) * (nr + 1) + m) * 7]; }
  int rho_array(int from, int at) const { return type2rhor[from * (ntypes + 1) + at]; }
  int z2r_array(int i, int j) const { return type2z2r[i * (ntypes + 1) + j]; }
};

/// Rounds the tables to float.
inline FloatTables make_float_tables(const potentials::EamTables& t) {
  FloatTables f;
  f.ntypes = t.ntypes, f.nrho = t.nrho, f.nr = t.nr;
  f.rdr = static_cast<float>(t.rdr), f.rdrho = static_cast<float>(t.rdrho);
  f.rhomax = static_cast<float>(t.rhomax);
  f.cutsq = static_cast<float>(t.cutmax * t.cutmax);
  f.frho.assign(t.frho.begin(), t.frho.end());
  f.rhor.assign(t.rhor.begin(), t.rhor.end());
  f.z2r.assign(t.z2r.begin(), t.z2r.end());
  f.type2frho = t.type2frho, f.type2rhor = t.type2rhor, f.type2z2r = t.type2z2r;
  f.zbl = t.zbl.cast<float>();
  return f;
}

/// x_i − (x_j + shift·L) in the PE's precision (periodic_delta's grouping).
inline double pe_delta(double xi, double xj, int shift, double len) {
  return periodic_delta(xi, xj, shift, len);
}
inline float pe_delta(float xi, float xj, int shift, float len) {
  return (xi - xj) - static_cast<float>(shift) * len;
}

inline void f32_locate(float x, float rdx, int n, int lo_clamp, int& m, float& p) {
  p = x * rdx + 1.0f;
  // Clamped before the conversion (a NaN or huge value stays in the table), as potentials::locate_r.
  const float top = static_cast<float>(n - 1), low = static_cast<float>(lo_clamp);
  m = static_cast<int>(p < top ? (p > low ? p : low) : top);
  p -= static_cast<float>(m);
  p = p < 1.0f ? p : 1.0f;
}

/// The squared cut-off of fp32 tables (md/eam_atom_kernels.hpp's kernels find it by argument type).
inline float cutoff_sq(const FloatTables& t) {
  return t.cutsq;
}
/// Knot m and fraction p of distance r in fp32 tables' ρ and φ splines.
inline void locate_pair(const FloatTables& t, float r, int& m, float& p) {
  f32_locate(r, t.rdr, t.nr, 0, m, p);
}
/// Knot m and fraction p of density rho in fp32 tables' F splines.
inline void locate_embed(const FloatTables& t, float rho, int& m, float& p) {
  f32_locate(rho, t.rdrho, t.nrho, 1, m, p);
}

/// atom_density in float.
inline float f32_density(const FloatTables& t, int ti, int n, const float* dx, const float* dy,
                         const float* dz, const int* tj) {
  return basic_atom_density<float>(t, ti, n, dx, dy, dz, tj);
}

/// atom_embed in float; returns F(ρ̄) and sets fp = F'(ρ̄).
inline float f32_embed(const FloatTables& t, int ti, float rho, float& fp) {
  return basic_atom_embed<float>(t, ti, rho, fp);
}

/// atom_force in float: force into f[3], half the virial into vir[6]; returns half the pair energy.
inline float f32_force(const FloatTables& t, int ti, float fpi, int n, const float* dx, const float* dy,
                       const float* dz, const int* tj, const float* fpj, float f[3], float vir[6]) {
  if (t.zbl.active())
    return basic_atom_force<float, FloatTables, true>(t, ti, fpi, n, dx, dy, dz, tj, fpj, f, vir);
  return basic_atom_force<float>(t, ti, fpi, n, dx, dy, dz, tj, fpj, f, vir);
}

}  // namespace wmd::md::mesh
