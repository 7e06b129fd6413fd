// fp32 PE arithmetic: the EAM tables rounded to float and the per-atom kernels of md/eam_atom_kernels.hpp in
// float (same order of operations), as the wafer's cores compute. fp64 mode uses eam_atom_kernels.hpp itself.
#pragma once
#include <cmath>
#include <vector>

#include "md/eam_atom_kernels.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md::mesh {

/// EamTables with every coefficient in float (fp32 tables in PE memory).
struct FloatTables {
  int ntypes = 0, nrho = 0, nr = 0;
  float rdr = 0, rdrho = 0, rhomax = 0, cutsq = 0;
  std::vector<float> frho, rhor, z2r;
  std::vector<int> type2frho, type2rhor, type2z2r;
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
  m = static_cast<int>(p);
  m = m < n - 1 ? m : n - 1;
  m = m > lo_clamp ? m : lo_clamp;
  p -= static_cast<float>(m);
  p = p < 1.0f ? p : 1.0f;
}

/// atom_density in float.
inline float f32_density(const FloatTables& t, int ti, int n, const float* dx, const float* dy,
                         const float* dz, const int* tj) {
  float rho = 0.0f;
  for (int k = 0; k < n; ++k) {
    const float rsq = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
    if (rsq >= t.cutsq) continue;
    int m;
    float p;
    f32_locate(std::sqrt(rsq), t.rdr, t.nr, 0, m, p);
    const float* c = t.rhor_knot(t.rho_array(tj[k], ti), m);
    rho += ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  }
  return rho;
}

/// atom_embed in float; returns F(ρ̄) and sets fp = F'(ρ̄).
inline float f32_embed(const FloatTables& t, int ti, float rho, float& fp) {
  int m;
  float p;
  f32_locate(rho, t.rdrho, t.nrho, 1, m, p);
  const float* c = t.frho_knot(t.type2frho[ti], m);
  fp = (c[0] * p + c[1]) * p + c[2];
  float phi = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  if (rho > t.rhomax) phi += fp * (rho - t.rhomax);
  return phi;
}

/// atom_force in float: force into f[3], half the virial into vir[6]; returns half the pair energy.
inline float f32_force(const FloatTables& t, int ti, float fpi, int n, const float* dx, const float* dy,
                       const float* dz, const int* tj, const float* fpj, float f[3], float vir[6]) {
  float fx = 0, fy = 0, fz = 0, ephalf = 0, v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0, v5 = 0;
  for (int k = 0; k < n; ++k) {
    const float rsq = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
    if (rsq >= t.cutsq) continue;
    const float r = std::sqrt(rsq);
    int m;
    float p;
    f32_locate(r, t.rdr, t.nr, 0, m, p);
    const int tjk = tj[k];
    const float* c = t.rhor_knot(t.rho_array(ti, tjk), m);
    const float rhoip = (c[0] * p + c[1]) * p + c[2];
    c = t.rhor_knot(t.rho_array(tjk, ti), m);
    const float rhojp = (c[0] * p + c[1]) * p + c[2];
    c = t.z2r_knot(t.z2r_array(ti, tjk), m);
    const float z2p = (c[0] * p + c[1]) * p + c[2];
    const float z2 = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
    const float recip = 1.0f / r;
    const float phi = z2 * recip;
    const float phip = z2p * recip - phi * recip;
    const float fpair = -(fpi * rhojp + fpj[k] * rhoip + phip) * recip;
    fx += dx[k] * fpair;
    fy += dy[k] * fpair;
    fz += dz[k] * fpair;
    ephalf += 0.5f * phi;
    v0 += dx[k] * dx[k] * fpair;
    v1 += dy[k] * dy[k] * fpair;
    v2 += dz[k] * dz[k] * fpair;
    v3 += dx[k] * dy[k] * fpair;
    v4 += dx[k] * dz[k] * fpair;
    v5 += dy[k] * dz[k] * fpair;
  }
  f[0] += fx, f[1] += fy, f[2] += fz;
  vir[0] += 0.5f * v0, vir[1] += 0.5f * v1, vir[2] += 0.5f * v2;
  vir[3] += 0.5f * v3, vir[4] += 0.5f * v4, vir[5] += 0.5f * v5;
  return ephalf;
}

}  // namespace wmd::md::mesh
