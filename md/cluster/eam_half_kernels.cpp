#include "md/cluster/eam_half_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <type_traits>

#include "base/error.hpp"
#include "base/non_finite.hpp"
#include "md/cluster/eam_half_simd.hpp"

namespace wmd::md {
namespace {

#ifndef KOKKOS_ENABLE_SERIAL
#error "the cluster kernels run on Kokkos::Serial: build Kokkos with Kokkos_ENABLE_SERIAL=ON"
#endif
// Serial whatever the default host space: the half-list passes scatter into neighbours' slots in LAMMPS's
// order, which gives LAMMPS's sums; threads would need atomics and would sum in a varying order.
using Exec = Kokkos::Serial;

// Scatter into a neighbour's slot (one thread: a plain add).
KOKKOS_INLINE_FUNCTION void scatter_add(double* a, double v) {
  *a += v;
}

// Energy and virial summed over atoms by the force kernel.
struct EnergyVirial {
  double e = 0.0, v[6] = {0, 0, 0, 0, 0, 0};
  KOKKOS_INLINE_FUNCTION EnergyVirial& operator+=(const EnergyVirial& o) {
    e += o.e;
    for (int k = 0; k < 6; ++k) v[k] += o.v[k];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile EnergyVirial& o) volatile {
    e += o.e;
    for (int k = 0; k < 6; ++k) v[k] += o.v[k];
  }
};

// LAMMPS's r-table lookup (potentials::locate_r) in the pair arithmetic's precision.
template <class Real>
KOKKOS_INLINE_FUNCTION void locate(Real r, Real rdr, int nr, int& m, Real& p) {
  p = r * rdr + Real(1);
  m = static_cast<int>(p < Real(nr - 1) ? (p > Real(0) ? p : Real(0)) : Real(nr - 1));  // as locate_r
  p -= m;
  p = p < Real(1) ? p : Real(1);
}

// The portable force loop: per-atom energies (any precision). kZbl adds the ZBL term (in fp64, LAMMPS's
// PairZBL arithmetic) to the pairs within its outer cut-off.
template <class Real, bool kZbl>
void force_scalar(const EamPairTables& t, const HalfPairs& hp, HostView<const double> fp, HostView<double> f,
                  EnergyVirial& ev, double* eatom) {
  const double cutsq = t.cutmax * t.cutmax;
  const Real rdr = static_cast<Real>(t.rdr);
  const int nr = t.nr, nt = t.ntypes;
  const auto rec = hp.rec;
  const auto off = hp.offset;
  const auto nbr = hp.nbr;
  const potentials::ZblTerm* zbl = &t.zbl;
  const Real* tab = nullptr;
  if constexpr (std::is_same_v<Real, float>)
    tab = t.force32.data();
  else
    tab = t.force.data();
  Kokkos::parallel_reduce(
      "eam_force_half", Kokkos::RangePolicy<Exec>(hp.atom_begin, hp.atom_end),
      KOKKOS_LAMBDA(const int i, EnergyVirial& acc) {
        const PosRec ri = rec(i);
        const size_t base = static_cast<size_t>(ri.type - 1) * nt;
        const double fpi = fp(i);
        double fxi = 0.0, fyi = 0.0, fzi = 0.0;
        for (int64_t k = off(i); k < off(i + 1); ++k) {
          const int j = nbr(k);
          const PosRec& rj = rec(j);
          const double dx = ri.x - rj.x, dy = ri.y - rj.y, dz = ri.z - rj.z;
          const double rsq = dx * dx + dy * dy + dz * dz;
          if (rsq >= cutsq) continue;
          const Real r = std::sqrt(static_cast<Real>(rsq));
          int m;
          Real p;
          locate<Real>(r, rdr, nr, m, p);
          const Real* c = tab + ((base + rj.type - 1) * (nr + 1) + m) * 16;
          const Real z2p = (c[0] * p + c[1]) * p + c[2];
          const Real z2 = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
          const Real rhoip = (c[7] * p + c[8]) * p + c[9];
          const Real rhojp = (c[10] * p + c[11]) * p + c[12];
          const Real recip = Real(1) / r;
          const Real phi = z2 * recip;
          const Real phip = z2p * recip - phi * recip;
          const Real psip = static_cast<Real>(fpi) * rhojp + static_cast<Real>(fp(j)) * rhoip + phip;
          double fpair = -psip * recip;
          double phi_all = phi;
          if constexpr (kZbl) {
            if (rsq < zbl->outer_sq) {
              double fz;
              phi_all += potentials::zbl_pair(zbl->at(ri.type, rj.type), zbl->inner, zbl->inner_sq, rsq, fz);
              fpair += fz;
            }
          }
          fxi += dx * fpair;
          fyi += dy * fpair;
          fzi += dz * fpair;
          scatter_add(&f(3 * j), -dx * fpair);
          scatter_add(&f(3 * j + 1), -dy * fpair);
          scatter_add(&f(3 * j + 2), -dz * fpair);
          acc.e += phi_all;
          if (eatom) {
            scatter_add(&eatom[i], 0.5 * phi_all);
            scatter_add(&eatom[j], 0.5 * phi_all);
          }
          acc.v[0] += dx * dx * fpair;
          acc.v[1] += dy * dy * fpair;
          acc.v[2] += dz * dz * fpair;
          acc.v[3] += dx * dy * fpair;
          acc.v[4] += dx * dz * fpair;
          acc.v[5] += dy * dz * fpair;
        }
        scatter_add(&f(3 * i), fxi);
        scatter_add(&f(3 * i + 1), fyi);
        scatter_add(&f(3 * i + 2), fzi);
      },
      ev);
}

}  // namespace

void ensure_kokkos() {
  if (!Kokkos::is_initialized()) {
    Kokkos::initialize();
    std::atexit([] {
      if (Kokkos::is_initialized()) Kokkos::finalize();
    });
  }
}

PairPrecision parse_pair_precision(const std::string& s) {
  if (s == "fp32" || s == "mixed") return PairPrecision::mixed;
  return PairPrecision::fp64;
}

EamPairTables pack_pair_tables(const potentials::EamTables& t, bool single) {
  EamPairTables p;
  p.ntypes = t.ntypes;
  p.nr = t.nr;
  p.rdr = t.rdr;
  p.cutmax = t.cutmax;
  p.serial = t.serial;
  p.zbl = t.zbl;
  const int nt = t.ntypes;
  const size_t knots = static_cast<size_t>(t.nr) + 1;
  const size_t npairs = static_cast<size_t>(nt) * nt;
  p.dens = Kokkos::View<double*, Kokkos::HostSpace>("eam_dens", npairs * knots * 8);
  p.force = Kokkos::View<double*, Kokkos::HostSpace>("eam_force", npairs * knots * 16);
  if (nt == 1) p.force1 = Kokkos::View<double*, Kokkos::HostSpace>("eam_force1", knots * 8);
  for (int ti = 1; ti <= nt; ++ti) {
    for (int tj = 1; tj <= nt; ++tj) {
      const size_t pair = static_cast<size_t>(ti - 1) * nt + (tj - 1);
      const int rho_ji = t.rho_array(tj, ti), rho_ij = t.rho_array(ti, tj), z2r = t.z2r_array(ti, tj);
      for (int m = 1; m <= t.nr; ++m) {
        double* d = &p.dens((pair * knots + m) * 8);
        double* f = &p.force((pair * knots + m) * 16);
        const double* a = t.rhor_knot(rho_ji, m);
        const double* b = t.rhor_knot(rho_ij, m);
        const double* z = t.z2r_knot(z2r, m);
        for (int k = 0; k < 4; ++k) d[k] = a[3 + k], d[4 + k] = b[3 + k];
        for (int k = 0; k < 7; ++k) f[k] = z[k];
        for (int k = 0; k < 3; ++k) f[7 + k] = b[k], f[10 + k] = a[k];
        if (nt == 1) {
          double* g = &p.force1(m * 8);
          for (int k = 0; k < 4; ++k) g[k] = z[3 + k];
          for (int k = 0; k < 3; ++k) g[4 + k] = b[k];
        }
      }
    }
  }
  if (single) {
    p.dens32 = Kokkos::View<float*, Kokkos::HostSpace>("eam_dens32", p.dens.extent(0));
    p.force32 = Kokkos::View<float*, Kokkos::HostSpace>("eam_force32", p.force.extent(0));
    for (size_t k = 0; k < p.dens.extent(0); ++k) p.dens32(k) = static_cast<float>(p.dens(k));
    for (size_t k = 0; k < p.force.extent(0); ++k) p.force32(k) = static_cast<float>(p.force(k));
  }
  return p;
}

// Virial from the forces on every record, owned and image, before the images' forces are folded onto their
// owners: Σ_records r ⊗ f equals the pair sum Σ_pairs (r_i − r_j) ⊗ f_ij (LAMMPS's virial_fdotr_compute). One
// pass over the records instead of six products per pair keeps the force kernel's registers for the pair
// arithmetic (per-pair accumulators spilled and made the force pass ~30 % slower).
void add_virial_fdotr(const HalfPairs& hp, HostView<const double> f, int n, double virial[6]) {
  const auto rec = hp.rec;
  EnergyVirial w;
  Kokkos::parallel_reduce(
      "eam_virial_fdotr", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const int j, EnergyVirial& acc) {
        const PosRec& r = rec(j);
        const double fx = f(3 * j), fy = f(3 * j + 1), fz = f(3 * j + 2);
        acc.v[0] += r.x * fx;
        acc.v[1] += r.y * fy;
        acc.v[2] += r.z * fz;
        acc.v[3] += r.x * fy;
        acc.v[4] += r.x * fz;
        acc.v[5] += r.y * fz;
      },
      w);
  for (int k = 0; k < 6; ++k) virial[k] += w.v[k];
}

HalfPairs half_pairs(const GhostImages& g, HalfNeighborList& list) {
  HalfPairs h;
  list.ncut.assign(g.nlocal, -1);
  list.cut_mask.resize(static_cast<size_t>(kMaskWords) * g.nlocal);
  h.rec = HostView<const PosRec>(g.rec.data(), g.rec.size());
  h.offset = HostView<const int64_t>(list.offset.data(), list.offset.size());
  h.nbr = HostView<const int>(list.nbr.data(), list.nbr.size());
  h.cut_mask = HostView<uint64_t>(list.cut_mask.data(), list.cut_mask.size());
  h.ncut = HostView<int>(list.ncut.data(), list.ncut.size());
  h.nlocal = g.nlocal;
  h.atom_begin = 0, h.atom_end = g.nlocal;
  return h;
}

void eam_density_half(const EamPairTables& t, const HalfPairs& hp, PairPrecision prec, HostView<double> rho) {
  simd_density_half(t, hp, prec != PairPrecision::fp64, rho.data());
}

double eam_embed(const potentials::EamTables& t, const HalfPairs& hp, HostView<const double> rho,
                 HostView<double> fp, double* eatom, bool with_energy) {
  const auto rec = hp.rec;
  const double rdrho = t.rdrho, rhomax = t.rhomax;
  const int nrho = t.nrho;
  const double* frho = t.frho.data();
  const int* type2frho = t.type2frho.data();
  // A non-finite density (densities summed past the double range) would look F up at a clamped knot and
  // give finite, wrong energies: the run fails instead.
  const bool bad = any_non_finite(rho.data(), static_cast<size_t>(hp.nlocal));  // every step
  if (bad) throw RunError("an atom has a non-finite electron density (the potential's densities overflow)");
  if (t.ntypes == 1 && !eatom) return simd_embed_one_type(t, hp.nlocal, rho.data(), fp.data(), with_energy);
  double energy = 0.0;
  Kokkos::parallel_reduce(
      "eam_embed", Kokkos::RangePolicy<Exec>(0, hp.nlocal),
      KOKKOS_LAMBDA(const int i, double& e) {
        int m;
        double p;
        potentials::locate_rho(rho(i), rdrho, nrho, m, p);
        const double* c = frho + (static_cast<size_t>(type2frho[rec(i).type]) * (nrho + 1) + m) * 7;
        fp(i) = (c[0] * p + c[1]) * p + c[2];
        double phi = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
        // Beyond the table, extend F linearly so energy stays conserved (LAMMPS does the same).
        if (rho(i) > rhomax) phi += fp(i) * (rho(i) - rhomax);
        e += phi;
        if (eatom) eatom[i] += phi;
      },
      energy);
  return energy;
}

double eam_force_half(const EamPairTables& t, const HalfPairs& hp, PairPrecision prec,
                      HostView<const double> fp, HostView<double> f, double virial[6], double* eatom) {
  EnergyVirial ev;
  const bool reduced = prec != PairPrecision::fp64;
  if (f.extent(0) <= 3 * hp.rec.extent(0))
    throw RunError("internal error: eam_force_half needs one spare double after the records' forces");
  if (eatom) {
    // Per-atom energies (dumps of pe/atom) take the portable loop.
    if (t.zbl.active())
      reduced ? force_scalar<float, true>(t, hp, fp, f, ev, eatom)
              : force_scalar<double, true>(t, hp, fp, f, ev, eatom);
    else
      reduced ? force_scalar<float, false>(t, hp, fp, f, ev, eatom)
              : force_scalar<double, false>(t, hp, fp, f, ev, eatom);
  } else {
    ev.e = simd_force_half(t, hp, reduced, fp.data(), f.data());
    if (virial) add_virial_fdotr(hp, f, static_cast<int>(hp.rec.extent(0)), ev.v);
  }
  if (virial)
    for (int k = 0; k < 6; ++k) virial[k] += ev.v[k];
  return ev.e;
}

}  // namespace wmd::md
