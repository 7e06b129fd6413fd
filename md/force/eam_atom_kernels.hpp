// EAM for one atom over its full neighbourhood, in an order the caller fixes: the arithmetic shared by
// the cluster backend's deterministic mode and the mesh backend's PEs, so both give the same fp64 bits.
// Written once over the precision and the tables (fp64 here, the PEs' fp32 copy in md/mesh/pe_kernels.hpp),
// so the fp32 path cannot drift from the fp64 order of operations.
#pragma once
#include <cmath>

#include "potentials/eam_tables.hpp"

namespace wmd::md {

/// The one periodic-displacement formula of both backends: x_i − (x_j + shift·L),
/// grouped as (x_i − x_j) − shift·L.
inline double periodic_delta(double xi, double xj, int shift, double length) {
  return (xi - xj) - shift * length;
}

/// The squared cut-off of fp64 tables (the kernels below call this, or an fp32 tables' overload,
/// unqualified).
inline double cutoff_sq(const potentials::EamTables& t) {
  return t.cutmax * t.cutmax;
}
/// Knot m and fraction p of distance r in fp64 tables' ρ and φ splines.
inline void locate_pair(const potentials::EamTables& t, double r, int& m, double& p) {
  potentials::locate_r(r, t.rdr, t.nr, m, p);
}
/// Knot m and fraction p of density rho in fp64 tables' F splines.
inline void locate_embed(const potentials::EamTables& t, double rho, int& m, double& p) {
  potentials::locate_rho(rho, t.rdrho, t.nrho, m, p);
}

/// ρ̄ of an atom of type ti: Σ over n neighbours (displacements d = x_i − x_j, types tj),
/// summed in the given order; Real is the arithmetic's precision, Tables fp64 or fp32 tables.
template <class Real, class Tables>
Real basic_atom_density(const Tables& t, int ti, int n, const Real* dx, const Real* dy, const Real* dz,
                        const int* tj) {
  const Real cutsq = cutoff_sq(t);
  Real rho = 0;
  for (int k = 0; k < n; ++k) {
    const Real rsq = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
    if (rsq >= cutsq) continue;
    int m;
    Real p;
    locate_pair(t, std::sqrt(rsq), m, p);
    const Real* c = t.rhor_knot(t.rho_array(tj[k], ti), m);
    rho += ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  }
  return rho;
}

/// Embedding energy F(ρ̄) (linearly extended above rhomax, as LAMMPS) of an atom of type ti; sets fp = F'(ρ̄).
template <class Real, class Tables>
Real basic_atom_embed(const Tables& t, int ti, Real rho, Real& fp) {
  int m;
  Real p;
  locate_embed(t, rho, m, p);
  const Real* c = t.frho_knot(t.type2frho[ti], m);
  fp = (c[0] * p + c[1]) * p + c[2];
  Real phi = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  if (rho > t.rhomax) phi += fp * (rho - t.rhomax);
  return phi;
}

/// Force on an atom of type ti with F' = fpi from n neighbours (displacements, types, their F'),
/// summed in the given order into f[3]; returns half the pair energy of its pairs and adds half
/// their virial into vir[6]. kZbl: the tables' ZBL term (t.zbl) is added to the pairs within its outer
/// cut-off, and their count added to *zbl_pairs when it is not null; without it the loop is plain EAM's.
template <class Real, class Tables, bool kZbl = false>
Real basic_atom_force(const Tables& t, int ti, Real fpi, int n, const Real* dx, const Real* dy,
                      const Real* dz, const int* tj, const Real* fpj, Real f[3], Real vir[6],
                      int* zbl_pairs = nullptr) {
  const Real cutsq = cutoff_sq(t);
  Real fx = 0, fy = 0, fz = 0, ephalf = 0;
  Real v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0, v5 = 0;
  for (int k = 0; k < n; ++k) {
    const Real rsq = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
    if (rsq >= cutsq) continue;
    const Real r = std::sqrt(rsq);
    int m;
    Real p;
    locate_pair(t, r, m, p);
    const int tjk = tj[k];
    const Real* c = t.rhor_knot(t.rho_array(ti, tjk), m);
    const Real rhoip = (c[0] * p + c[1]) * p + c[2];
    c = t.rhor_knot(t.rho_array(tjk, ti), m);
    const Real rhojp = (c[0] * p + c[1]) * p + c[2];
    c = t.z2r_knot(t.z2r_array(ti, tjk), m);
    const Real z2p = (c[0] * p + c[1]) * p + c[2];
    const Real z2 = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
    const Real recip = Real(1) / r;
    const Real phi = z2 * recip;
    const Real phip = z2p * recip - phi * recip;
    Real fpair = -(fpi * rhojp + fpj[k] * rhoip + phip) * recip;
    if constexpr (kZbl) {
      if (rsq < t.zbl.outer_sq) {
        Real fz;
        ephalf += Real(0.5) * potentials::zbl_pair(t.zbl.at(ti, tjk), t.zbl.inner, t.zbl.inner_sq, rsq, fz);
        fpair += fz;
        if (zbl_pairs) ++*zbl_pairs;
      }
    }
    fx += dx[k] * fpair;
    fy += dy[k] * fpair;
    fz += dz[k] * fpair;
    ephalf += Real(0.5) * phi;
    v0 += dx[k] * dx[k] * fpair;
    v1 += dy[k] * dy[k] * fpair;
    v2 += dz[k] * dz[k] * fpair;
    v3 += dx[k] * dy[k] * fpair;
    v4 += dx[k] * dz[k] * fpair;
    v5 += dy[k] * dz[k] * fpair;
  }
  f[0] += fx, f[1] += fy, f[2] += fz;
  vir[0] += Real(0.5) * v0, vir[1] += Real(0.5) * v1, vir[2] += Real(0.5) * v2;
  vir[3] += Real(0.5) * v3, vir[4] += Real(0.5) * v4, vir[5] += Real(0.5) * v5;
  return ephalf;
}

/// basic_atom_density in fp64.
inline double atom_density(const potentials::EamTables& t, int ti, int n, const double* dx, const double* dy,
                           const double* dz, const int* tj) {
  return basic_atom_density<double>(t, ti, n, dx, dy, dz, tj);
}

/// basic_atom_embed in fp64.
inline double atom_embed(const potentials::EamTables& t, int ti, double rho, double& fp) {
  return basic_atom_embed<double>(t, ti, rho, fp);
}

/// basic_atom_force in fp64, with the ZBL term when the tables have one (one test per atom).
inline double atom_force(const potentials::EamTables& t, int ti, double fpi, int n, const double* dx,
                         const double* dy, const double* dz, const int* tj, const double* fpj, double f[3],
                         double vir[6], int* zbl_pairs = nullptr) {
  if (t.zbl.active())
    return basic_atom_force<double, potentials::EamTables, true>(t, ti, fpi, n, dx, dy, dz, tj, fpj, f, vir,
                                                                 zbl_pairs);
  return basic_atom_force<double>(t, ti, fpi, n, dx, dy, dz, tj, fpj, f, vir);
}

}  // namespace wmd::md
