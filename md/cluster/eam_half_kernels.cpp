#include "md/cluster/eam_half_kernels.hpp"

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
      "eam_density_half", Kokkos::RangePolicy<Exec>(hp.atom_begin, hp.atom_end), KOKKOS_LAMBDA(const int i) {
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
// A distance stage compacts the in-cut-off neighbours (index, r², offsets) into small stack buffers, then a
// table stage evaluates the splines eight pairs at a time with no idle lanes.

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

// a·b + c without fused rounding, as LAMMPS's scalar code computes it (the embedding loop, which must match
// the scalar loop bit for bit).
inline __m512d mul_add(__m512d a, __m512d b, __m512d c) {
  return _mm512_add_pd(_mm512_mul_pd(a, b), c);
}

// a·b + c rounded once: the pair kernels' spline steps (half the instructions and latency of mul_add).
inline __m512d fused(__m512d a, __m512d b, __m512d c) {
  return _mm512_fmadd_pd(a, b, c);
}

// The same pointer, hidden from the optimiser: lanes stored to a small stack array are then read back by
// scalar loads instead of being extracted from the register one by one with shuffles.
template <class T>
inline T* opaque(T* p) {
  asm("" : "+r"(p));
  return p;
}

// Distance stage for neighbours nbr[k0..k1) of the atom at (xi, yi, zi): in-cutoff ones are appended to bj
// and brsq (and their offsets to bdx, bdy, bdz when `offsets` is set), the others to bo when it is not null;
// returns how many are in the cut-off (`nout` gets the others). `mask` (k1 − k0 ≤ kMaskLen) gets the
// in-cut-off bits, every word written.
template <bool offsets>
[[gnu::always_inline]] inline int compact_block(const PosRec* rec, const int* nbr, int64_t k0, int64_t k1,
                                                __m512d xi, __m512d yi, __m512d zi, __m512d cutsq, int* bj,
                                                double* brsq, double* bdx, double* bdy, double* bdz, int* bo,
                                                int& nout, uint64_t* mask = nullptr) {
  int cnt = 0;
  nout = 0;
  // The in-cut-off bits collect in registers and are stored once: an OR into memory per group made each
  // group wait for the last one's store.
  uint64_t bits[kMaskWords] = {};
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
    if (mask) {
      const int64_t rel = k - k0;  // a multiple of 8: a group's bits never straddle two words
      const uint64_t b = static_cast<uint64_t>(in) << (rel & 63);
      for (int w = 0; w < kMaskWords; ++w) bits[w] |= (rel >> 6) == w ? b : 0;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(bj + cnt), _mm256_maskz_compress_epi32(in, jv));
    _mm512_storeu_pd(brsq + cnt, _mm512_maskz_compress_pd(in, rsq));
    if constexpr (offsets) {
      _mm512_storeu_pd(bdx + cnt, _mm512_maskz_compress_pd(in, dx));
      _mm512_storeu_pd(bdy + cnt, _mm512_maskz_compress_pd(in, dy));
      _mm512_storeu_pd(bdz + cnt, _mm512_maskz_compress_pd(in, dz));
    }
    if (bo) {
      const __mmask8 outside = static_cast<__mmask8>(tail & ~in);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(bo + nout), _mm256_maskz_compress_epi32(outside, jv));
      nout += _mm_popcnt_u32(outside);
    }
    cnt += _mm_popcnt_u32(in);
  }
  if (mask)
    for (int w = 0; w < kMaskWords; ++w) mask[w] = bits[w];
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

// Tables and constants of one kernel launch (tab1: the one-type force table, see EamPairTables).
struct PairConsts {
  const PosRec* rec;
  const double* tab;
  int nr, nt;
  double rdr, cutsq;
  const double* tab1 = nullptr;
};

// r and 1/r of eight squared distances: exact (fp64 sqrt and divide), or, for the reduced-precision modes,
// the hardware 14-bit reciprocal square root refined by one Newton step (≈ 2^-28 relative, fp32 accuracy) at
// a fraction of the latency.
template <bool approx>
inline __m512d distance8(__m512d rsq, __m512d* recip) {
  const __m512d one = _mm512_set1_pd(1.0);
  if constexpr (approx) {
    __m512d y = _mm512_rsqrt14_pd(rsq);
    const __m512d h = _mm512_mul_pd(_mm512_set1_pd(0.5), rsq);
    y = _mm512_mul_pd(y, _mm512_sub_pd(_mm512_set1_pd(1.5), _mm512_mul_pd(h, _mm512_mul_pd(y, y))));
    if (recip) *recip = y;
    return _mm512_mul_pd(rsq, y);
  } else {
    const __m512d r = _mm512_sqrt_pd(rsq);
    if (recip) *recip = _mm512_div_pd(one, r);
    return r;
  }
}

// Longer lists are processed in blocks of this many neighbours (the per-atom stack buffers).
constexpr int kInline = 512;

// Distances of one atom's cnt compacted pairs, eight at a time: r and (if brc is not null) 1/r into br and
// brc (padded to a multiple of eight with r = 1). A separate loop, so that the long sqrt and divide latencies
// of successive groups overlap instead of stalling each group's table stage.
template <bool approx>
inline void distances(const double* brsq, int cnt, double* br, double* brc) {
  const __m512d one = _mm512_set1_pd(1.0);
  for (int c0 = 0; c0 < cnt; c0 += 8) {
    __m512d recip;
    const __m512d r =
        distance8<approx>(_mm512_mask_loadu_pd(one, lanes_mask(cnt - c0), brsq + c0), brc ? &recip : nullptr);
    _mm512_store_pd(br + c0, r);
    if (brc) _mm512_store_pd(brc + c0, recip);
  }
}

// Density table stage over cnt compacted pairs of atom i at distances br: returns Σ ρ_{j→i} and scatters
// ρ_{i→j} onto j. With one atom type ρ_{i→j} = ρ_{j→i}, so one transpose serves both.
template <bool single>
inline __m512d density_table_r(const PairConsts& k, size_t base, const int* bj, const double* br, int cnt,
                               double* rho, __m512d rhoi) {
  alignas(32) int m[8];
  alignas(64) double tj[8];
  const __m512d vrdr = _mm512_set1_pd(k.rdr);
  const __m256i nrm1 = _mm256_set1_epi32(k.nr - 1);
  for (int c0 = 0; c0 < cnt; c0 += 8) {
    const int nl = std::min(8, cnt - c0);
    const __mmask8 tail = lanes_mask(nl);
    const __m512d p = locate8(_mm512_load_pd(br + c0), vrdr, nrm1, m);
    const int* mm = opaque(m);
    const double* q[8];
    for (int l = 0; l < 8; ++l) {
      const size_t pair = single || l >= nl ? 0 : base + k.rec[bj[c0 + l]].type - 1;
      q[l] = k.tab + (pair * (k.nr + 1) + mm[l]) * 8;
    }
    __m512d a[4];
    transpose8x4(q, 0, a);
    const __m512d vi = fused(fused(fused(a[0], p, a[1]), p, a[2]), p, a[3]);
    rhoi = _mm512_mask_add_pd(rhoi, tail, rhoi, vi);
    __m512d vj = vi;
    if constexpr (!single) {
      __m512d b[4];
      transpose8x4(q, 4, b);
      vj = fused(fused(fused(b[0], p, b[1]), p, b[2]), p, b[3]);
    }
    if constexpr (std::is_same_v<Exec, Kokkos::Serial>) {
      // The eight partners are distinct records: one gather, add and scatter is the eight scalar updates.
      const __m256i jv = _mm256_maskz_loadu_epi32(tail, bj + c0);
      const __m512d old = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), tail, jv, rho, 8);
      _mm512_mask_i32scatter_pd(rho, tail, jv, _mm512_add_pd(old, vj), 8);
    } else {
      _mm512_store_pd(tj, vj);
      for (int l = 0; l < nl; ++l) scatter_add(rho + bj[c0 + l], tj[l]);
    }
  }
  return rhoi;
}

// The same from squared distances brsq.
template <bool single, bool approx>
inline __m512d density_table(const PairConsts& k, size_t base, const int* bj, const double* brsq, int cnt,
                             double* rho, __m512d rhoi) {
  alignas(64) double br[kInline + 8];
  distances<approx>(brsq, cnt, br, nullptr);
  return density_table_r<single>(k, base, bj, br, cnt, rho, rhoi);
}

template <bool single, bool approx>
void density_avx512(const EamPairTables& t, const HalfPairs& hp, HostView<double> rhov) {
  const PairConsts k{hp.rec.data(), t.dens.data(), t.nr, t.ntypes, t.rdr, t.cutmax * t.cutmax};
  const int64_t* off = hp.offset.data();
  const int* nbr = hp.nbr.data();
  uint64_t* cut_mask = hp.cut_mask.data();
  int* ncut = hp.ncut.data();
  double* rho = rhov.data();
  // Atoms in blocks; within a block the distance stage (compaction, sqrt) of the next atom is issued before
  // the table stage of this one, so the divider works beside the table stage's shuffles.
  constexpr int kBlock = 64;
  const int first = hp.atom_begin, last = hp.atom_end;
  const int nblocks = (last - first + kBlock - 1) / kBlock;
  Kokkos::parallel_for("eam_density_half_avx512", Kokkos::RangePolicy<Exec>(0, nblocks), [=](const int blk) {
    struct Stage {
      alignas(64) int bj[kMaskLen + 16];
      alignas(64) double brsq[kMaskLen + 8];
      alignas(64) double br[kMaskLen + 8];
      int cnt;
      bool longlist;
    };
    Stage st[2];
    const __m512d vcut = _mm512_set1_pd(k.cutsq);
    const int i0 = first + blk * kBlock, i1 = std::min(last, i0 + kBlock);
    auto prep = [&](int i, Stage& g) {
      // As in the force pass: the list entries of the atom six places on, and its mask line for writing
      // (≈ 2 % on the medians, faster in 15 of 24 alternations). Written out in both passes: moved into one
      // shared inline helper, GCC 12 left no prefetch in the object file at all.
      if (i + 6 < last) {
        const char* q = reinterpret_cast<const char*>(nbr + off[i + 6]);
        _mm_prefetch(q, _MM_HINT_T0);
        _mm_prefetch(q + 64, _MM_HINT_T0);
        _mm_prefetch(q + 128, _MM_HINT_T0);
        _m_prefetchw(cut_mask + kMaskWords * static_cast<size_t>(i + 6));
      }
      const int64_t b = off[i], e = off[i + 1];
      g.longlist = e - b > kMaskLen;
      if (g.longlist) return;
      const PosRec ri = k.rec[i];
      const __m512d xi = _mm512_set1_pd(ri.x), yi = _mm512_set1_pd(ri.y), zi = _mm512_set1_pd(ri.z);
      uint64_t* mask = cut_mask + kMaskWords * static_cast<size_t>(i);  // every word written
      int nout = 0;
      g.cnt = compact_block<false>(k.rec, nbr, b, e, xi, yi, zi, vcut, g.bj, g.brsq, nullptr, nullptr,
                                   nullptr, nullptr, nout, mask);
      ncut[i] = g.cnt;
      distances<approx>(g.brsq, g.cnt, g.br, nullptr);
    };
    prep(i0, st[0]);
    for (int i = i0; i < i1; ++i) {
      Stage& g = st[(i - i0) & 1];
      if (i + 1 < i1) prep(i + 1, st[(i + 1 - i0) & 1]);
      const PosRec ri = k.rec[i];
      const size_t base = static_cast<size_t>(ri.type - 1) * k.nt;
      __m512d rhoi = _mm512_setzero_pd();
      if (!g.longlist) {
        rhoi = density_table_r<single>(k, base, g.bj, g.br, g.cnt, rho, rhoi);
      } else {
        alignas(64) int bj[kInline + 16];
        alignas(64) double brsq[kInline + 8];
        const __m512d xi = _mm512_set1_pd(ri.x), yi = _mm512_set1_pd(ri.y), zi = _mm512_set1_pd(ri.z);
        const int64_t b = off[i], e = off[i + 1];
        int nout = 0;
        for (int64_t k0 = b; k0 < e; k0 += kInline) {
          const int64_t k1 = std::min<int64_t>(e, k0 + kInline);
          const int cnt = compact_block<false>(k.rec, nbr, k0, k1, xi, yi, zi, vcut, bj, brsq, nullptr,
                                               nullptr, nullptr, nullptr, nout);
          rhoi = density_table<single, approx>(k, base, bj, brsq, cnt, rho, rhoi);
        }
        ncut[i] = -1;
      }
      scatter_add(rho + i, _mm512_reduce_add_pd(rhoi));
    }
  });
}

// The lane sums of four vectors, (Σa, Σb, Σc, Σd), in one tree: 8 shuffles and 4 adds where four separate
// reductions take 12 and 12.
inline __m256d reduce4(__m512d a, __m512d b, __m512d c, __m512d d) {
  const __m512d ab = _mm512_add_pd(_mm512_unpacklo_pd(a, b), _mm512_unpackhi_pd(a, b));  // a01 b01 a23 b23 …
  const __m512d cd = _mm512_add_pd(_mm512_unpacklo_pd(c, d), _mm512_unpackhi_pd(c, d));
  // Lanes (a, b) 0–3 and 4–7 halves, then (c, d): 128-bit blocks 0, 2 and 1, 3 of ab and cd.
  const __m512d s = _mm512_add_pd(_mm512_shuffle_f64x2(ab, cd, 0x88), _mm512_shuffle_f64x2(ab, cd, 0xDD));
  // s = (a0123 b0123 a4567 b4567 c0123 d0123 c4567 d4567): blocks 0, 2 plus blocks 1, 3.
  const __m512d t = _mm512_add_pd(_mm512_shuffle_f64x2(s, s, 0x08), _mm512_shuffle_f64x2(s, s, 0x0D));
  return _mm512_castpd512_pd256(t);
}

// Per-atom accumulators of the force pass.
struct ForceAcc {
  __m512d fx, fy, fz, e;
};

// f[3·js[l] + 0..2] −= (fx, fy, fz)[l] for lanes l < nl, one 256-bit load, subtract and store per neighbour:
// the three vectors are transposed into (x, y, z, 0) rows, and the fourth double (the next record's x, or the
// one spare double past the last record) gets −0 subtracted, which leaves every value's bits as they were
// (x − (+0) = x, also for −0 and NaN). a − b is a + (−b) in IEEE arithmetic, so the bits equal three scalar
// updates. Single-threaded only: the fourth double belongs to another record.
inline void scatter_rows(double* f, const int* js, int nl, __m512d fx, __m512d fy, __m512d fz) {
  const __m512d zero = _mm512_setzero_pd();
  const __m512d a = _mm512_unpacklo_pd(fx, fy), b = _mm512_unpackhi_pd(fx, fy);  // (x, y) of even, odd lanes
  const __m512d c = _mm512_unpacklo_pd(fz, zero), d = _mm512_unpackhi_pd(fz, zero);
  const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  alignas(64) double rows[8][4];  // row (l >> 1) + 4 (l & 1) holds lane l
  _mm512_store_pd(rows[0], _mm512_permutex2var_pd(a, lo, c));
  _mm512_store_pd(rows[2], _mm512_permutex2var_pd(a, hi, c));
  _mm512_store_pd(rows[4], _mm512_permutex2var_pd(b, lo, d));
  _mm512_store_pd(rows[6], _mm512_permutex2var_pd(b, hi, d));
  const double(*row)[4] = opaque(rows);
  for (int l = 0; l < nl; ++l) {
    double* fj = f + 3 * static_cast<size_t>(js[l]);
    _mm256_storeu_pd(fj, _mm256_sub_pd(_mm256_loadu_pd(fj), _mm256_load_pd(row[(l >> 1) + 4 * (l & 1)])));
  }
}

// Force table stage for eight (nl valid) in-cut-off pairs of atom i with offsets dx, dy, dz, distances r,
// inverse distances recip and indices jv.
template <bool single>
inline void force_group(const PairConsts& k, size_t base, const double* fp, double* f, __m512d fpi,
                        __m512d dx, __m512d dy, __m512d dz, __m512d r, __m512d recip, __m256i jv, int nl,
                        ForceAcc& a) {
  alignas(32) int m[8];
  alignas(32) int js[8];
  alignas(64) double tx[8], ty[8], tz[8];
  const __mmask8 tail = lanes_mask(nl);
  const __m512d p = locate8(r, _mm512_set1_pd(k.rdr), _mm256_set1_epi32(k.nr - 1), m);
  _mm256_store_si256(reinterpret_cast<__m256i*>(js), jv);
  const int* jj = opaque(js);
  const int* mm = opaque(m);
  const double* q[8];
  const __m512d fpj = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), tail, jv, fp, 8);
  __m512d z2p, z2, rhoip, rhojp;
  if constexpr (single) {
    // One cache line per knot: r·φ's value coefficients a..d and ρ'. (r·φ)' = rdr·((3a·p + 2b)·p + c), as
    // LAMMPS's z2r_spline[0..2], comes out of the value's Horner steps: t1 = a·p + b, t2 = t1·p + c,
    // (3a·p + 2b)·p + c = (a·p + t1)·p + t2.
    for (int l = 0; l < 8; ++l) q[l] = k.tab1 + static_cast<size_t>(mm[l]) * 8;
    __m512d z[4], w[4];
    transpose8x4(q, 0, z);  // r·φ c3..c6
    transpose8x4(q, 4, w);  // ρ' c0..c2, padding
    const __m512d t1 = fused(z[0], p, z[1]);
    const __m512d t2 = fused(t1, p, z[2]);
    z2 = fused(t2, p, z[3]);
    z2p = _mm512_mul_pd(fused(fused(z[0], p, t1), p, t2), _mm512_set1_pd(k.rdr));
    rhoip = rhojp = fused(fused(w[0], p, w[1]), p, w[2]);
  } else {
    for (int l = 0; l < 8; ++l) {
      const size_t pair = l >= nl ? 0 : base + k.rec[jj[l]].type - 1;
      q[l] = k.tab + (pair * (k.nr + 1) + mm[l]) * 16;
    }
    __m512d z[4], u[4], w[4], s[4];
    transpose8x4(q, 0, z);   // r·φ c0..c3
    transpose8x4(q, 4, u);   // r·φ c4..c6, ρ_{i→j} c0
    transpose8x4(q, 8, w);   // ρ_{i→j} c1..c2, ρ_{j→i} c0..c1
    transpose8x4(q, 12, s);  // ρ_{j→i} c2
    z2p = fused(fused(z[0], p, z[1]), p, z[2]);
    z2 = fused(fused(fused(z[3], p, u[0]), p, u[1]), p, u[2]);
    rhoip = fused(fused(u[3], p, w[0]), p, w[1]);
    rhojp = fused(fused(w[2], p, w[3]), p, s[0]);
  }
  const __m512d phi = _mm512_mul_pd(z2, recip);
  const __m512d phip = _mm512_sub_pd(_mm512_mul_pd(z2p, recip), _mm512_mul_pd(phi, recip));
  const __m512d psip =
      _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(fpi, rhojp), _mm512_mul_pd(fpj, rhoip)), phip);
  const __m512d fpair = _mm512_maskz_mul_pd(tail, _mm512_sub_pd(_mm512_setzero_pd(), psip), recip);
  const __m512d fx = _mm512_mul_pd(dx, fpair), fy = _mm512_mul_pd(dy, fpair), fz = _mm512_mul_pd(dz, fpair);
  a.fx = _mm512_add_pd(a.fx, fx);
  a.fy = _mm512_add_pd(a.fy, fy);
  a.fz = _mm512_add_pd(a.fz, fz);
  a.e = _mm512_mask_add_pd(a.e, tail, a.e, phi);
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) {
    scatter_rows(f, jj, nl, fx, fy, fz);
  } else {
    _mm512_store_pd(tx, fx);
    _mm512_store_pd(ty, fy);
    _mm512_store_pd(tz, fz);
    for (int l = 0; l < nl; ++l) {
      double* fj = f + 3 * static_cast<size_t>(js[l]);
      scatter_add(fj, -tx[l]);
      scatter_add(fj + 1, -ty[l]);
      scatter_add(fj + 2, -tz[l]);
    }
  }
}

template <bool single, bool approx>
void force_avx512(const EamPairTables& t, const HalfPairs& hp, HostView<const double> fpv,
                  HostView<double> fv, EnergyVirial& ev) {
  const PairConsts k{hp.rec.data(), t.force.data(),      t.nr,           t.ntypes,
                     t.rdr,         t.cutmax * t.cutmax, t.force1.data()};
  const int64_t* off = hp.offset.data();
  const int* nbr = hp.nbr.data();
  const uint64_t* cut_mask = hp.cut_mask.data();
  const int* ncut = hp.ncut.data();
  const double* fp = fpv.data();
  double* f = fv.data();
  // Atoms in blocks; within a block the next atom's neighbour offsets, r and 1/r (sqrt and divide) are
  // computed before this atom's table stage, so the divider works beside the table stage's shuffles. (The
  // density pass's loop has the same shape; one template for both measured 2 % slower per step.)
  constexpr int kBlock = 64;
  const int first = hp.atom_begin, last = hp.atom_end;
  const int nblocks = (last - first + kBlock - 1) / kBlock;
  Kokkos::parallel_reduce(
      "eam_force_half_avx512", Kokkos::RangePolicy<Exec>(0, nblocks),
      [=](const int blk, EnergyVirial& acc) {
        struct Stage {
          alignas(64) int bj[kMaskLen + 16];
          alignas(64) double bdx[kMaskLen + 8], bdy[kMaskLen + 8], bdz[kMaskLen + 8];
          alignas(64) double brsq[kMaskLen + 8], br[kMaskLen + 8], brc[kMaskLen + 8];
          int cnt;
        };
        Stage st[2];
        const __m512d zero = _mm512_setzero_pd();
        const int i0 = first + blk * kBlock, i1 = std::min(last, i0 + kBlock);
        // Offsets and distances of atom i's in-cut-off pairs, as the density pass marked them.
        auto prep = [&](int i, Stage& g) {
          // The list entries and the mask of the atom six places on, asked for now: ≈ 3 % faster than
          // leaving the two streams to the hardware prefetcher (16 of 18 alternations).
          if (i + 6 < last) {
            const char* q = reinterpret_cast<const char*>(nbr + off[i + 6]);
            _mm_prefetch(q, _MM_HINT_T0);
            _mm_prefetch(q + 64, _MM_HINT_T0);
            _mm_prefetch(q + 128, _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(cut_mask + kMaskWords * static_cast<size_t>(i + 6)),
                         _MM_HINT_T0);
          }
          if (ncut[i] < 0) return;
          const PosRec ri = k.rec[i];
          const __m512d xi = _mm512_set1_pd(ri.x), yi = _mm512_set1_pd(ri.y), zi = _mm512_set1_pd(ri.z);
          const int64_t b = off[i], e = off[i + 1];
          const uint64_t* mask = cut_mask + kMaskWords * static_cast<size_t>(i);
          int n = 0;
          for (int64_t q = b; q < e; q += 16) {
            const int64_t rel = q - b;  // a multiple of 16: within one word
            const __mmask16 tail =
                static_cast<__mmask16>(e - q >= 16 ? 0xFFFF : (1u << static_cast<unsigned>(e - q)) - 1u);
            const __mmask16 in = static_cast<__mmask16>((mask[rel >> 6] >> (rel & 63)) & tail);
            const __m512i jv = _mm512_maskz_loadu_epi32(tail, nbr + q);
            _mm512_storeu_si512(g.bj + n, _mm512_maskz_compress_epi32(in, jv));
            n += _mm_popcnt_u32(in);
          }
          for (int c0 = 0; c0 < n; c0 += 8) {
            const int nl = std::min(8, n - c0);
            const __mmask8 tail = lanes_mask(nl);
            const double* p[8];
            for (int l = 0; l < 8; ++l) p[l] = &k.rec[g.bj[c0 + (l < nl ? l : 0)]].x;
            __m512d c[4];
            transpose8x4(p, 0, c);
            const __m512d dx = _mm512_maskz_sub_pd(tail, xi, c[0]), dy = _mm512_maskz_sub_pd(tail, yi, c[1]),
                          dz = _mm512_maskz_sub_pd(tail, zi, c[2]);
            _mm512_store_pd(g.bdx + c0, dx);
            _mm512_store_pd(g.bdy + c0, dy);
            _mm512_store_pd(g.bdz + c0, dz);
            _mm512_store_pd(g.brsq + c0,
                            _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
                                          _mm512_mul_pd(dz, dz)));
          }
          g.cnt = n;
          distances<approx>(g.brsq, n, g.br, g.brc);
        };
        // Table stage over cnt pairs of atom i in the given buffers.
        auto tables = [&](ForceAcc& a, size_t base, __m512d fpi, const int* js, const double* bdx,
                          const double* bdy, const double* bdz, const double* br, const double* brc,
                          int cnt) {
          for (int c0 = 0; c0 < cnt; c0 += 8) {
            const int nl = std::min(8, cnt - c0);
            const __mmask8 tail = lanes_mask(nl);
            // Idle lanes read zeros: past cnt the buffers may hold stale stack values, and 0 · NaN is NaN.
            force_group<single>(k, base, fp, f, fpi, _mm512_maskz_load_pd(tail, bdx + c0),
                                _mm512_maskz_load_pd(tail, bdy + c0), _mm512_maskz_load_pd(tail, bdz + c0),
                                _mm512_load_pd(br + c0), _mm512_load_pd(brc + c0),
                                _mm256_maskz_loadu_epi32(tail, js + c0), nl, a);
          }
        };
        prep(i0, st[0]);
        for (int i = i0; i < i1; ++i) {
          Stage& g = st[(i - i0) & 1];
          if (i + 1 < i1) prep(i + 1, st[(i + 1 - i0) & 1]);
          const PosRec ri = k.rec[i];
          const size_t base = static_cast<size_t>(ri.type - 1) * k.nt;
          const __m512d fpi = _mm512_set1_pd(fp[i]);
          ForceAcc a{zero, zero, zero, zero};
          if (ncut[i] >= 0) {
            tables(a, base, fpi, g.bj, g.bdx, g.bdy, g.bdz, g.br, g.brc, g.cnt);
          } else {
            // A list past the masks: distances tested again, in blocks of the stack buffers.
            alignas(64) int bj[kInline + 16];
            alignas(64) double bdx[kInline + 8], bdy[kInline + 8], bdz[kInline + 8], brsq[kInline + 8];
            alignas(64) double br[kInline + 8], brc[kInline + 8];
            const __m512d xi = _mm512_set1_pd(ri.x), yi = _mm512_set1_pd(ri.y), zi = _mm512_set1_pd(ri.z);
            const __m512d vcut = _mm512_set1_pd(k.cutsq);
            int nout = 0;
            for (int64_t k0 = off[i]; k0 < off[i + 1]; k0 += kInline) {
              const int64_t k1 = std::min<int64_t>(off[i + 1], k0 + kInline);
              const int cnt = compact_block<true>(k.rec, nbr, k0, k1, xi, yi, zi, vcut, bj, brsq, bdx, bdy,
                                                  bdz, nullptr, nout);
              distances<approx>(brsq, cnt, br, brc);
              tables(a, base, fpi, bj, bdx, bdy, bdz, br, brc, cnt);
            }
          }
          const size_t i3 = 3 * static_cast<size_t>(i);
          if constexpr (std::is_same_v<Exec, Kokkos::Serial>) {
            // (Σfx, Σfy, Σfz, Σe) in one tree; f_i gets (fx, fy, fz) as one row, the fourth double (the next
            // record's x or the spare one) −(+0), as scatter_rows.
            const __m256d sums = reduce4(a.fx, a.fy, a.fz, a.e);
            const __m256d neg = _mm256_xor_pd(sums, _mm256_setr_pd(-0.0, -0.0, -0.0, 0.0));
            const __m256d row = _mm256_blend_pd(neg, _mm256_setzero_pd(), 0x8);
            _mm256_storeu_pd(f + i3, _mm256_sub_pd(_mm256_loadu_pd(f + i3), row));
            acc.e += _mm256_cvtsd_f64(_mm256_permute4x64_pd(sums, 3));
          } else {
            scatter_add(f + i3, _mm512_reduce_add_pd(a.fx));
            scatter_add(f + i3 + 1, _mm512_reduce_add_pd(a.fy));
            scatter_add(f + i3 + 2, _mm512_reduce_add_pd(a.fz));
            acc.e += _mm512_reduce_add_pd(a.e);
          }
        }
      },
      ev);
}

// F'(ρ̄) of nlocal atoms of one type, eight at a time: LAMMPS's look-up and Horner order per atom, so the same
// bits as the scalar loop; the energies are added one by one in atom order, as there. It reads no record:
// with one type every atom uses the same F table. Without `with_energy` only F′ is written (returns 0).
template <bool with_energy>
double embed_avx512(const potentials::EamTables& t, int nlocal, const double* rho, double* fp) {
  const double* table = t.frho.data() + static_cast<size_t>(t.type2frho[1]) * (t.nrho + 1) * 7;
  const double rdrho = t.rdrho, rhomax = t.rhomax;
  const int nrho = t.nrho;
  double energy = 0.0;
  Kokkos::parallel_reduce(
      "eam_embed_avx512", Kokkos::RangePolicy<Exec>(0, (nlocal + 7) / 8),
      [=](const int group, double& acc) {
        const int i0 = 8 * group, nl = std::min(8, nlocal - i0);
        const __mmask8 tail = lanes_mask(nl);
        const __m512d one = _mm512_set1_pd(1.0), vmax = _mm512_set1_pd(rhomax);
        const __m512d r = _mm512_mask_loadu_pd(_mm512_setzero_pd(), tail, rho + i0);
        __m512d p = _mm512_add_pd(_mm512_mul_pd(r, _mm512_set1_pd(rdrho)), one);
        const __m256i mi = _mm256_max_epi32(
            _mm256_min_epi32(_mm512_cvttpd_epi32(p), _mm256_set1_epi32(nrho - 1)), _mm256_set1_epi32(1));
        alignas(32) int m[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(m), mi);
        p = _mm512_min_pd(_mm512_sub_pd(p, _mm512_cvtepi32_pd(mi)), one);
        const double* q[8];
        for (int l = 0; l < 8; ++l) q[l] = table + static_cast<size_t>(m[l]) * 7;
        __m512d c[4], d[4];
        transpose8x4(q, 0, c);  // c0..c3
        transpose8x4(q, 4, d);  // c4..c6 (and the next knot's c0, in the table: m < nrho)
        const __m512d f1 = mul_add(mul_add(c[0], p, c[1]), p, c[2]);
        _mm512_mask_storeu_pd(fp + i0, tail, f1);
        if constexpr (!with_energy) return;
        __m512d e = mul_add(mul_add(mul_add(c[3], p, d[0]), p, d[1]), p, d[2]);
        // Beyond the table F continues linearly, as in the scalar loop.
        e = _mm512_mask_add_pd(e, _mm512_cmp_pd_mask(r, vmax, _CMP_GT_OQ), e,
                               _mm512_mul_pd(f1, _mm512_sub_pd(r, vmax)));
        alignas(64) double phi[8];
        _mm512_store_pd(phi, e);
        for (int l = 0; l < nl; ++l) acc += phi[l];
      },
      energy);
  return energy;
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
#ifdef WMD_AVX512
  const bool approx = prec != PairPrecision::fp64;
  if (t.ntypes == 1)
    approx ? density_avx512<true, true>(t, hp, rho) : density_avx512<true, false>(t, hp, rho);
  else
    approx ? density_avx512<false, true>(t, hp, rho) : density_avx512<false, false>(t, hp, rho);
#else
  if (prec != PairPrecision::fp64)
    density_scalar<float>(t, hp, rho);
  else
    density_scalar<double>(t, hp, rho);
#endif
}

double eam_embed(const potentials::EamTables& t, const HalfPairs& hp, HostView<const double> rho,
                 HostView<double> fp, double* eatom, bool with_energy) {
  const auto rec = hp.rec;
  const double rdrho = t.rdrho, rhomax = t.rhomax;
  const int nrho = t.nrho;
  const double* frho = t.frho.data();
  const int* type2frho = t.type2frho.data();
#ifdef WMD_AVX512
  if (t.ntypes == 1 && !eatom)
    return with_energy ? embed_avx512<true>(t, hp.nlocal, rho.data(), fp.data())
                       : embed_avx512<false>(t, hp.nlocal, rho.data(), fp.data());
#endif
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
#ifdef WMD_AVX512
  if (eatom) {
    // Per-atom energies (dumps of pe/atom) take the portable loop.
    reduced ? force_scalar<float>(t, hp, fp, f, ev, eatom) : force_scalar<double>(t, hp, fp, f, ev, eatom);
  } else {
    if (t.ntypes == 1)
      reduced ? force_avx512<true, true>(t, hp, fp, f, ev) : force_avx512<true, false>(t, hp, fp, f, ev);
    else
      reduced ? force_avx512<false, true>(t, hp, fp, f, ev) : force_avx512<false, false>(t, hp, fp, f, ev);
    if (virial) add_virial_fdotr(hp, f, static_cast<int>(hp.rec.extent(0)), ev.v);
  }
#else
  reduced ? force_scalar<float>(t, hp, fp, f, ev, eatom) : force_scalar<double>(t, hp, fp, f, ev, eatom);
#endif
  if (virial)
    for (int k = 0; k < 6; ++k) virial[k] += ev.v[k];
  return ev.e;
}

}  // namespace wmd::md
