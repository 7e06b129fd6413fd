#include "md/eam_half_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace wmd::md {

void eam_density_half(const potentials::EamTables& t, const GhostImages& g, const HalfNeighborList& list,
                      double* rho) {
  const double cutsq = t.cutmax * t.cutmax;
  const double rdr = t.rdr;
  const int nr = t.nr;
  const int nlocal = g.nlocal;
  const PosRec* rec = g.rec.data();
  std::fill(rho, rho + g.nall(), 0.0);
  for (int i = 0; i < nlocal; ++i) {
    const PosRec ri = rec[i];
    double rhoi = 0.0;
    for (int64_t k = list.offset[i]; k < list.offset[i + 1]; ++k) {
      const int j = list.nbr[k];
      const PosRec& rj = rec[j];
      const double dx = ri.x - rj.x, dy = ri.y - rj.y, dz = ri.z - rj.z;
      const double rsq = dx * dx + dy * dy + dz * dz;
      if (rsq >= cutsq) continue;
      int m;
      double p;
      potentials::locate_r(std::sqrt(rsq), rdr, nr, m, p);
      const double* c = t.rhor_knot(t.rho_array(rj.type, ri.type), m);
      rhoi += ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
      c = t.rhor_knot(t.rho_array(ri.type, rj.type), m);
      rho[j] += ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
    }
    rho[i] += rhoi;
  }
}

double eam_embed(const potentials::EamTables& t, const GhostImages& g, const double* rho, double* fp,
                 double* eatom) {
  double energy = 0.0;
  for (int i = 0; i < g.nlocal; ++i) {
    int m;
    double p;
    potentials::locate_rho(rho[i], t.rdrho, t.nrho, m, p);
    const double* c = t.frho_knot(t.type2frho[g.rec[i].type], m);
    fp[i] = (c[0] * p + c[1]) * p + c[2];
    double phi = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
    // Beyond the table, extend F linearly so energy stays conserved (LAMMPS does the same).
    if (rho[i] > t.rhomax) phi += fp[i] * (rho[i] - t.rhomax);
    energy += phi;
    if (eatom) eatom[i] += phi;
  }
  return energy;
}

double eam_force_half(const potentials::EamTables& t, const GhostImages& g, const HalfNeighborList& list,
                      const double* fp, double* f, double virial[6], double* eatom) {
  const double cutsq = t.cutmax * t.cutmax;
  const double rdr = t.rdr;
  const int nr = t.nr;
  const PosRec* rec = g.rec.data();
  double energy = 0.0;
  double v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0, v5 = 0;
  for (int i = 0; i < g.nlocal; ++i) {
    const PosRec ri = rec[i];
    const double fpi = fp[i];
    double fxi = 0.0, fyi = 0.0, fzi = 0.0;
    for (int64_t k = list.offset[i]; k < list.offset[i + 1]; ++k) {
      const int j = list.nbr[k];
      const PosRec& rj = rec[j];
      const double dx = ri.x - rj.x, dy = ri.y - rj.y, dz = ri.z - rj.z;
      const double rsq = dx * dx + dy * dy + dz * dz;
      if (rsq >= cutsq) continue;
      const double r = std::sqrt(rsq);
      int m;
      double p;
      potentials::locate_r(r, rdr, nr, m, p);
      const double* c = t.rhor_knot(t.rho_array(ri.type, rj.type), m);
      const double rhoip = (c[0] * p + c[1]) * p + c[2];
      c = t.rhor_knot(t.rho_array(rj.type, ri.type), m);
      const double rhojp = (c[0] * p + c[1]) * p + c[2];
      c = t.z2r_knot(t.z2r_array(ri.type, rj.type), m);
      const double z2p = (c[0] * p + c[1]) * p + c[2];
      const double z2 = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
      const double recip = 1.0 / r;
      const double phi = z2 * recip;
      const double phip = z2p * recip - phi * recip;
      const double psip = fpi * rhojp + fp[j] * rhoip + phip;
      const double fpair = -psip * recip;
      fxi += dx * fpair;
      fyi += dy * fpair;
      fzi += dz * fpair;
      f[3 * j] -= dx * fpair;
      f[3 * j + 1] -= dy * fpair;
      f[3 * j + 2] -= dz * fpair;
      energy += phi;
      if (eatom) {
        eatom[i] += 0.5 * phi;
        eatom[j] += 0.5 * phi;
      }
      v0 += dx * dx * fpair;
      v1 += dy * dy * fpair;
      v2 += dz * dz * fpair;
      v3 += dx * dy * fpair;
      v4 += dx * dz * fpair;
      v5 += dy * dz * fpair;
    }
    f[3 * i] += fxi;
    f[3 * i + 1] += fyi;
    f[3 * i + 2] += fzi;
  }
  virial[0] += v0, virial[1] += v1, virial[2] += v2, virial[3] += v3, virial[4] += v4, virial[5] += v5;
  return energy;
}

}  // namespace wmd::md
