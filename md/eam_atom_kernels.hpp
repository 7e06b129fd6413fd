// EAM for one atom over its full neighbourhood, in an order the caller fixes: the arithmetic shared by
// the cluster backend's deterministic mode and the mesh backend's PEs, so both give the same fp64 bits.
#pragma once
#include <cmath>

#include "potentials/eam_tables.hpp"

namespace wmd::md {

/// The one periodic-displacement formula of both backends: x_i − (x_j + shift·L),
/// grouped as (x_i − x_j) − shift·L.
inline double periodic_delta(double xi, double xj, int shift, double length) {
  return (xi - xj) - shift * length;
}

/// ρ̄ of an atom of type ti: Σ over n neighbours (displacements d = x_i − x_j, types tj),
/// summed in the given order.
inline double atom_density(const potentials::EamTables& t, int ti, int n, const double* dx, const double* dy,
                           const double* dz, const int* tj) {
  const double cutsq = t.cutmax * t.cutmax;
  double rho = 0.0;
  for (int k = 0; k < n; ++k) {
    const double rsq = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
    if (rsq >= cutsq) continue;
    int m;
    double p;
    potentials::locate_r(std::sqrt(rsq), t.rdr, t.nr, m, p);
    const double* c = t.rhor_knot(t.rho_array(tj[k], ti), m);
    rho += ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  }
  return rho;
}

/// Embedding energy F(ρ̄) (linearly extended above rhomax, as LAMMPS) of an atom of type ti; sets fp = F'(ρ̄).
inline double atom_embed(const potentials::EamTables& t, int ti, double rho, double& fp) {
  int m;
  double p;
  potentials::locate_rho(rho, t.rdrho, t.nrho, m, p);
  const double* c = t.frho_knot(t.type2frho[ti], m);
  fp = (c[0] * p + c[1]) * p + c[2];
  double phi = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  if (rho > t.rhomax) phi += fp * (rho - t.rhomax);
  return phi;
}

/// Force on an atom of type ti with F' = fpi from n neighbours (displacements, types, their F'),
/// summed in the given order into f[3]; returns half the pair energy of its pairs and adds half
/// their virial into vir[6].
inline double atom_force(const potentials::EamTables& t, int ti, double fpi, int n, const double* dx,
                         const double* dy, const double* dz, const int* tj, const double* fpj, double f[3],
                         double vir[6]) {
  const double cutsq = t.cutmax * t.cutmax;
  double fx = 0.0, fy = 0.0, fz = 0.0, ephalf = 0.0;
  double v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0, v5 = 0;
  for (int k = 0; k < n; ++k) {
    const double rsq = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
    if (rsq >= cutsq) continue;
    const double r = std::sqrt(rsq);
    int m;
    double p;
    potentials::locate_r(r, t.rdr, t.nr, m, p);
    const int tjk = tj[k];
    const double* c = t.rhor_knot(t.rho_array(ti, tjk), m);
    const double rhoip = (c[0] * p + c[1]) * p + c[2];
    c = t.rhor_knot(t.rho_array(tjk, ti), m);
    const double rhojp = (c[0] * p + c[1]) * p + c[2];
    c = t.z2r_knot(t.z2r_array(ti, tjk), m);
    const double z2p = (c[0] * p + c[1]) * p + c[2];
    const double z2 = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
    const double recip = 1.0 / r;
    const double phi = z2 * recip;
    const double phip = z2p * recip - phi * recip;
    const double fpair = -(fpi * rhojp + fpj[k] * rhoip + phip) * recip;
    fx += dx[k] * fpair;
    fy += dy[k] * fpair;
    fz += dz[k] * fpair;
    ephalf += 0.5 * phi;
    v0 += dx[k] * dx[k] * fpair;
    v1 += dy[k] * dy[k] * fpair;
    v2 += dz[k] * dz[k] * fpair;
    v3 += dx[k] * dy[k] * fpair;
    v4 += dx[k] * dz[k] * fpair;
    v5 += dy[k] * dz[k] * fpair;
  }
  f[0] += fx, f[1] += fy, f[2] += fz;
  vir[0] += 0.5 * v0, vir[1] += 0.5 * v1, vir[2] += 0.5 * v2;
  vir[3] += 0.5 * v3, vir[4] += 0.5 * v4, vir[5] += 0.5 * v5;
  return ephalf;
}

}  // namespace wmd::md
