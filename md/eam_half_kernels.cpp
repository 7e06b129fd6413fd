#include "md/eam_half_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <type_traits>

#include "base/error.hpp"

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512DQ__)
#define WMD_AVX512 1
#include <immintrin.h>
#endif

namespace wmd::md {
namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;

// Scatter into a neighbour's slot: plain on the serial backend, atomic where threads could collide.
KOKKOS_INLINE_FUNCTION void scatter_add(double* a, double v) {
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) {
    *a += v;
  } else {
    Kokkos::atomic_add(a, v);
  }
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
  m = static_cast<int>(p);
  m = m < nr - 1 ? m : nr - 1;
  p -= m;
  p = p < Real(1) ? p : Real(1);
}

// Portable pair loops (any Kokkos backend, any precision, per-atom energies).
template <class Real>
void density_scalar(const EamPairTables& t, const HalfPairs& hp, HostView<double> rho) {
  const double cutsq = t.cutmax * t.cutmax;
  const Real rdr = static_cast<Real>(t.rdr);
  const int nr = t.nr, nt = t.ntypes;
  const auto rec = hp.rec;
  const auto off = hp.offset;
  const auto nbr = hp.nbr;
  const Real* tab = nullptr;
  if constexpr (std::is_same_v<Real, float>)
    tab = t.dens32.data();
  else
    tab = t.dens.data();
  Kokkos::parallel_for(
      "eam_density_half", Kokkos::RangePolicy<Exec>(0, hp.nlocal), KOKKOS_LAMBDA(const int i) {
        const PosRec ri = rec(i);
        const size_t base = static_cast<size_t>(ri.type - 1) * nt;
        double rhoi = 0.0;
        for (int64_t k = off(i); k < off(i + 1); ++k) {
          const int j = nbr(k);
          const PosRec& rj = rec(j);
          const double dx = ri.x - rj.x, dy = ri.y - rj.y, dz = ri.z - rj.z;
          const double rsq = dx * dx + dy * dy + dz * dz;
          if (rsq >= cutsq) continue;
          int m;
          Real p;
          locate<Real>(std::sqrt(static_cast<Real>(rsq)), rdr, nr, m, p);
          const Real* c = tab + ((base + rj.type - 1) * (nr + 1) + m) * 8;
          rhoi += ((c[0] * p + c[1]) * p + c[2]) * p + c[3];
          scatter_add(&rho(j), ((c[4] * p + c[5]) * p + c[6]) * p + c[7]);
        }
        scatter_add(&rho(i), rhoi);
      });
}

template <class Real>
void force_scalar(const EamPairTables& t, const HalfPairs& hp, HostView<const double> fp, HostView<double> f,
                  EnergyVirial& ev, double* eatom) {
  const double cutsq = t.cutmax * t.cutmax;
  const Real rdr = static_cast<Real>(t.rdr);
  const int nr = t.nr, nt = t.ntypes;
  const auto rec = hp.rec;
  const auto off = hp.offset;
  const auto nbr = hp.nbr;
  const Real* tab = nullptr;
  if constexpr (std::is_same_v<Real, float>)
    tab = t.force32.data();
  else
    tab = t.force.data();
  Kokkos::parallel_reduce(
      "eam_force_half", Kokkos::RangePolicy<Exec>(0, hp.nlocal),
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
          const double fpair = -psip * recip;
          fxi += dx * fpair;
          fyi += dy * fpair;
          fzi += dz * fpair;
          scatter_add(&f(3 * j), -dx * fpair);
          scatter_add(&f(3 * j + 1), -dy * fpair);
          scatter_add(&f(3 * j + 2), -dz * fpair);
          acc.e += phi;
          if (eatom) {
            scatter_add(&eatom[i], 0.5 * phi);
            scatter_add(&eatom[j], 0.5 * phi);
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

#ifdef WMD_AVX512
// Neighbours are handled in blocks: a distance stage compacts the in-cutoff ones (index, r², offsets) into
// small stack buffers, then a table stage evaluates the splines eight pairs at a time with no idle lanes.
constexpr int kBlock = 64;

// out[k] lane l = p[l][off + k], k < 4: eight 32-byte rows loaded whole and transposed in registers
// (hardware gathers cost as much as eight scalar loads on this kind of CPU).
inline void transpose8x4(const double* const p[8], int off, __m512d out[4]) {
  auto pair = [&](int a, int b) {
    return _mm512_insertf64x4(_mm512_zextpd256_pd512(_mm256_loadu_pd(p[a] + off)),
                              _mm256_loadu_pd(p[b] + off), 1);
  };
  const __m512d a = pair(0, 2), b = pair(1, 3), c = pair(4, 6), d = pair(5, 7);
  const __m512d ablo = _mm512_unpacklo_pd(a, b), abhi = _mm512_unpackhi_pd(a, b);
  const __m512d cdlo = _mm512_unpacklo_pd(c, d), cdhi = _mm512_unpackhi_pd(c, d);
  out[0] = _mm512_shuffle_f64x2(ablo, cdlo, 0x88);
  out[1] = _mm512_shuffle_f64x2(abhi, cdhi, 0x88);
  out[2] = _mm512_shuffle_f64x2(ablo, cdlo, 0xDD);
  out[3] = _mm512_shuffle_f64x2(abhi, cdhi, 0xDD);
}

inline __mmask8 lanes_mask(int n) {
  return static_cast<__mmask8>(n >= 8 ? 0xFF : (1u << n) - 1u);
}

// a·b + c without fused rounding, as LAMMPS's scalar code computes it.
inline __m512d mul_add(__m512d a, __m512d b, __m512d c) {
  return _mm512_add_pd(_mm512_mul_pd(a, b), c);
}

// Distance stage for neighbours nbr[k0..k1) of the atom at (xi, yi, zi): in-cutoff ones are appended to the
// buffers (j, r², and the offsets when `offsets` is set); returns how many.
template <bool offsets>
inline int compact_block(const PosRec* rec, const int* nbr, int64_t k0, int64_t k1, __m512d xi, __m512d yi,
                         __m512d zi, __m512d cutsq, int* bj, double* brsq, double* bdx, double* bdy,
                         double* bdz) {
  int cnt = 0;
  for (int64_t k = k0; k < k1; k += 8) {
    const int nl = static_cast<int>(std::min<int64_t>(8, k1 - k));
    const __mmask8 tail = lanes_mask(nl);
    const __m256i jv = _mm256_maskz_loadu_epi32(tail, nbr + k);
    const double* p[8];
    for (int l = 0; l < 8; ++l) p[l] = &rec[nbr[k + (l < nl ? l : 0)]].x;
    __m512d c[4];
    transpose8x4(p, 0, c);
    const __m512d dx = _mm512_sub_pd(xi, c[0]), dy = _mm512_sub_pd(yi, c[1]), dz = _mm512_sub_pd(zi, c[2]);
    const __m512d rsq =
        _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
    const __mmask8 in = _mm512_mask_cmp_pd_mask(tail, rsq, cutsq, _CMP_LT_OQ);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(bj + cnt), _mm256_maskz_compress_epi32(in, jv));
    _mm512_storeu_pd(brsq + cnt, _mm512_maskz_compress_pd(in, rsq));
    if constexpr (offsets) {
      _mm512_storeu_pd(bdx + cnt, _mm512_maskz_compress_pd(in, dx));
      _mm512_storeu_pd(bdy + cnt, _mm512_maskz_compress_pd(in, dy));
      _mm512_storeu_pd(bdz + cnt, _mm512_maskz_compress_pd(in, dz));
    }
    cnt += _mm_popcnt_u32(in);
  }
  return cnt;
}

// Knot index and fraction for eight distances (LAMMPS's p = r·rdr + 1 lookup, exact in fp64).
inline __m512d locate8(__m512d r, __m512d rdr, __m256i nrm1, int* m) {
  const __m512d one = _mm512_set1_pd(1.0);
  __m512d p = _mm512_add_pd(_mm512_mul_pd(r, rdr), one);
  const __m256i mi = _mm256_min_epi32(_mm512_cvttpd_epi32(p), nrm1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(m), mi);
  p = _mm512_sub_pd(p, _mm512_cvtepi32_pd(mi));
  return _mm512_min_pd(p, one);
}

void density_avx512(const EamPairTables& t, const HalfPairs& hp, HostView<double> rho) {
  const int nr = t.nr, nt = t.ntypes;
  const double rdr = t.rdr, cutsq = t.cutmax * t.cutmax;
  const PosRec* rec = hp.rec.data();
  const int64_t* off = hp.offset.data();
  const int* nbr = hp.nbr.data();
  const double* tab = t.dens.data();
  double* rh = rho.data();
  Kokkos::parallel_for("eam_density_half_avx512", Kokkos::RangePolicy<Exec>(0, hp.nlocal), [=](const int i) {
    alignas(64) int bj[kBlock + 16];
    alignas(64) double brsq[kBlock + 8];
    alignas(32) int m[8];
    alignas(64) double tj[8];
    const PosRec ri = rec[i];
    const size_t base = static_cast<size_t>(ri.type - 1) * nt;
    const __m512d xi = _mm512_set1_pd(ri.x), yi = _mm512_set1_pd(ri.y), zi = _mm512_set1_pd(ri.z);
    const __m512d vcut = _mm512_set1_pd(cutsq), vrdr = _mm512_set1_pd(rdr), one = _mm512_set1_pd(1.0);
    const __m256i nrm1 = _mm256_set1_epi32(nr - 1);
    __m512d rhoi = _mm512_setzero_pd();
    for (int64_t k0 = off[i]; k0 < off[i + 1]; k0 += kBlock) {
      const int64_t k1 = std::min<int64_t>(off[i + 1], k0 + kBlock);
      const int cnt =
          compact_block<false>(rec, nbr, k0, k1, xi, yi, zi, vcut, bj, brsq, nullptr, nullptr, nullptr);
      for (int c0 = 0; c0 < cnt; c0 += 8) {
        const int nl = std::min(8, cnt - c0);
        const __mmask8 tail = lanes_mask(nl);
        const __m512d r = _mm512_sqrt_pd(_mm512_mask_loadu_pd(one, tail, brsq + c0));
        const __m512d p = locate8(r, vrdr, nrm1, m);
        const double* q[8];
        for (int l = 0; l < 8; ++l) {
          const size_t pair = nt == 1 || l >= nl ? 0 : base + rec[bj[c0 + l]].type - 1;
          q[l] = tab + (pair * (nr + 1) + m[l]) * 8;
        }
        __m512d a[4], b[4];
        transpose8x4(q, 0, a);
        transpose8x4(q, 4, b);
        const __m512d vi = mul_add(mul_add(mul_add(a[0], p, a[1]), p, a[2]), p, a[3]);
        rhoi = _mm512_mask_add_pd(rhoi, tail, rhoi, vi);
        _mm512_store_pd(tj, mul_add(mul_add(mul_add(b[0], p, b[1]), p, b[2]), p, b[3]));
        for (int l = 0; l < nl; ++l) scatter_add(rh + bj[c0 + l], tj[l]);
      }
    }
    scatter_add(rh + i, _mm512_reduce_add_pd(rhoi));
  });
}

void force_avx512(const EamPairTables& t, const HalfPairs& hp, HostView<const double> fpv,
                  HostView<double> fv, EnergyVirial& ev) {
  const int nr = t.nr, nt = t.ntypes;
  const double rdr = t.rdr, cutsq = t.cutmax * t.cutmax;
  const PosRec* rec = hp.rec.data();
  const int64_t* off = hp.offset.data();
  const int* nbr = hp.nbr.data();
  const double* tab = t.force.data();
  const double* fp = fpv.data();
  double* f = fv.data();
  Kokkos::parallel_reduce(
      "eam_force_half_avx512", Kokkos::RangePolicy<Exec>(0, hp.nlocal),
      [=](const int i, EnergyVirial& acc) {
        alignas(64) int bj[kBlock + 16];
        alignas(64) double brsq[kBlock + 8], bdx[kBlock + 8], bdy[kBlock + 8], bdz[kBlock + 8];
        alignas(32) int m[8];
        alignas(64) double tx[8], ty[8], tz[8];
        const PosRec ri = rec[i];
        const size_t base = static_cast<size_t>(ri.type - 1) * nt;
        const __m512d xi = _mm512_set1_pd(ri.x), yi = _mm512_set1_pd(ri.y), zi = _mm512_set1_pd(ri.z);
        const __m512d vcut = _mm512_set1_pd(cutsq), vrdr = _mm512_set1_pd(rdr), one = _mm512_set1_pd(1.0);
        const __m512d fpi = _mm512_set1_pd(fp[i]);
        const __m256i nrm1 = _mm256_set1_epi32(nr - 1);
        __m512d fxi = _mm512_setzero_pd(), fyi = fxi, fzi = fxi, en = fxi;
        __m512d v0 = fxi, v1 = fxi, v2 = fxi, v3 = fxi, v4 = fxi, v5 = fxi;
        for (int64_t k0 = off[i]; k0 < off[i + 1]; k0 += kBlock) {
          const int64_t k1 = std::min<int64_t>(off[i + 1], k0 + kBlock);
          const int cnt = compact_block<true>(rec, nbr, k0, k1, xi, yi, zi, vcut, bj, brsq, bdx, bdy, bdz);
          for (int c0 = 0; c0 < cnt; c0 += 8) {
            const int nl = std::min(8, cnt - c0);
            const __mmask8 tail = lanes_mask(nl);
            const __m512d r = _mm512_sqrt_pd(_mm512_mask_loadu_pd(one, tail, brsq + c0));
            const __m512d dx = _mm512_maskz_loadu_pd(tail, bdx + c0);
            const __m512d dy = _mm512_maskz_loadu_pd(tail, bdy + c0);
            const __m512d dz = _mm512_maskz_loadu_pd(tail, bdz + c0);
            const __m256i jv = _mm256_maskz_loadu_epi32(tail, bj + c0);
            const __m512d fpj = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), tail, jv, fp, 8);
            const __m512d p = locate8(r, vrdr, nrm1, m);
            const double* q[8];
            for (int l = 0; l < 8; ++l) {
              const size_t pair = nt == 1 || l >= nl ? 0 : base + rec[bj[c0 + l]].type - 1;
              q[l] = tab + (pair * (nr + 1) + m[l]) * 16;
            }
            __m512d z[4], u[4], w[4], s[4];
            transpose8x4(q, 0, z);   // r·φ c0..c3
            transpose8x4(q, 4, u);   // r·φ c4..c6, ρ_{i→j} c0
            transpose8x4(q, 8, w);   // ρ_{i→j} c1..c2, ρ_{j→i} c0..c1
            transpose8x4(q, 12, s);  // ρ_{j→i} c2
            const __m512d z2p = mul_add(mul_add(z[0], p, z[1]), p, z[2]);
            const __m512d z2 = mul_add(mul_add(mul_add(z[3], p, u[0]), p, u[1]), p, u[2]);
            const __m512d rhoip = mul_add(mul_add(u[3], p, w[0]), p, w[1]);
            const __m512d rhojp = mul_add(mul_add(w[2], p, w[3]), p, s[0]);
            const __m512d recip = _mm512_div_pd(one, r);
            const __m512d phi = _mm512_mul_pd(z2, recip);
            const __m512d phip = _mm512_sub_pd(_mm512_mul_pd(z2p, recip), _mm512_mul_pd(phi, recip));
            const __m512d psip =
                _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(fpi, rhojp), _mm512_mul_pd(fpj, rhoip)), phip);
            const __m512d fpair = _mm512_maskz_mul_pd(tail, _mm512_sub_pd(_mm512_setzero_pd(), psip), recip);
            const __m512d fx = _mm512_mul_pd(dx, fpair), fy = _mm512_mul_pd(dy, fpair),
                          fz = _mm512_mul_pd(dz, fpair);
            fxi = _mm512_add_pd(fxi, fx);
            fyi = _mm512_add_pd(fyi, fy);
            fzi = _mm512_add_pd(fzi, fz);
            en = _mm512_mask_add_pd(en, tail, en, phi);
            v0 = _mm512_add_pd(v0, _mm512_mul_pd(_mm512_mul_pd(dx, dx), fpair));
            v1 = _mm512_add_pd(v1, _mm512_mul_pd(_mm512_mul_pd(dy, dy), fpair));
            v2 = _mm512_add_pd(v2, _mm512_mul_pd(_mm512_mul_pd(dz, dz), fpair));
            v3 = _mm512_add_pd(v3, _mm512_mul_pd(_mm512_mul_pd(dx, dy), fpair));
            v4 = _mm512_add_pd(v4, _mm512_mul_pd(_mm512_mul_pd(dx, dz), fpair));
            v5 = _mm512_add_pd(v5, _mm512_mul_pd(_mm512_mul_pd(dy, dz), fpair));
            _mm512_store_pd(tx, fx);
            _mm512_store_pd(ty, fy);
            _mm512_store_pd(tz, fz);
            for (int l = 0; l < nl; ++l) {
              double* fj = f + 3 * static_cast<size_t>(bj[c0 + l]);
              scatter_add(fj, -tx[l]);
              scatter_add(fj + 1, -ty[l]);
              scatter_add(fj + 2, -tz[l]);
            }
          }
        }
        scatter_add(f + 3 * static_cast<size_t>(i), _mm512_reduce_add_pd(fxi));
        scatter_add(f + 3 * static_cast<size_t>(i) + 1, _mm512_reduce_add_pd(fyi));
        scatter_add(f + 3 * static_cast<size_t>(i) + 2, _mm512_reduce_add_pd(fzi));
        acc.e += _mm512_reduce_add_pd(en);
        acc.v[0] += _mm512_reduce_add_pd(v0);
        acc.v[1] += _mm512_reduce_add_pd(v1);
        acc.v[2] += _mm512_reduce_add_pd(v2);
        acc.v[3] += _mm512_reduce_add_pd(v3);
        acc.v[4] += _mm512_reduce_add_pd(v4);
        acc.v[5] += _mm512_reduce_add_pd(v5);
      },
      ev);
}
#endif

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
  if (s == "fp32") return PairPrecision::fp32;
  if (s == "mixed") return PairPrecision::mixed;
  return PairPrecision::fp64;
}

EamPairTables pack_pair_tables(const potentials::EamTables& t, bool single) {
  EamPairTables p;
  p.ntypes = t.ntypes;
  p.nr = t.nr;
  p.rdr = t.rdr;
  p.cutmax = t.cutmax;
  const int nt = t.ntypes;
  const size_t knots = static_cast<size_t>(t.nr) + 1;
  const size_t npairs = static_cast<size_t>(nt) * nt;
  p.dens = Kokkos::View<double*, Kokkos::HostSpace>("eam_dens", npairs * knots * 8);
  p.force = Kokkos::View<double*, Kokkos::HostSpace>("eam_force", npairs * knots * 16);
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

HalfPairs half_pairs(const GhostImages& g, const HalfNeighborList& list) {
  HalfPairs h;
  h.rec = HostView<const PosRec>(g.rec.data(), g.rec.size());
  h.offset = HostView<const int64_t>(list.offset.data(), list.offset.size());
  h.nbr = HostView<const int>(list.nbr.data(), list.nbr.size());
  h.nlocal = g.nlocal;
  return h;
}

void eam_density_half(const EamPairTables& t, const HalfPairs& hp, PairPrecision prec, HostView<double> rho) {
  Kokkos::deep_copy(rho, 0.0);
  if (prec != PairPrecision::fp64) return density_scalar<float>(t, hp, rho);
#ifdef WMD_AVX512
  density_avx512(t, hp, rho);
#else
  density_scalar<double>(t, hp, rho);
#endif
}

double eam_embed(const potentials::EamTables& t, const HalfPairs& hp, HostView<const double> rho,
                 HostView<double> fp, double* eatom) {
  const auto rec = hp.rec;
  const double rdrho = t.rdrho, rhomax = t.rhomax;
  const int nrho = t.nrho;
  const double* frho = t.frho.data();
  const int* type2frho = t.type2frho.data();
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
  if (prec != PairPrecision::fp64) {
    force_scalar<float>(t, hp, fp, f, ev, eatom);
  } else {
#ifdef WMD_AVX512
    if (eatom)
      force_scalar<double>(t, hp, fp, f, ev, eatom);
    else
      force_avx512(t, hp, fp, f, ev);
#else
    force_scalar<double>(t, hp, fp, f, ev, eatom);
#endif
  }
  for (int k = 0; k < 6; ++k) virial[k] += ev.v[k];
  return ev.e;
}

}  // namespace wmd::md
