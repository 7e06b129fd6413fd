// The half-list EAM pair kernels over the vector width (Google Highway; docs/performance.md). Each pass has a
// distance stage that compacts an atom's in-cut-off neighbours (index, r², offsets) into small stack buffers,
// then a table stage that evaluates the splines Lanes pairs at a time with no idle lanes. Positions and
// spline knots are loaded as whole records and transposed in registers, never gathered lane by lane.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "md/cluster/eam_half_simd.cpp"
// Highway's per-target inclusion: foreach_target.h first, then highway.h.
// clang-format off
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// clang-format on
#include "md/cluster/eam_half_simd.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "base/simd_ops-inl.h"
#include "hwy/cache_control.h"

HWY_BEFORE_NAMESPACE();
namespace wmd::md::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
namespace ws = wmd::simd::HWY_NAMESPACE;

// Serial whatever the default host space, as the scalar kernels (eam_half_kernels.cpp): the scatters into
// neighbours' slots keep LAMMPS's order.
using Exec = Kokkos::Serial;

using D = hn::ScalableTag<double>;
using V = hn::Vec<D>;
using DI = hn::Rebind<int32_t, D>;  // one index per double lane
constexpr int N = static_cast<int>(ws::kLanes<double>);

// Padding of the stack buffers: a compaction stores a whole vector (up to 16 int32 lanes) past the last
// entry.
constexpr int kPad = 16;
// Longer lists are processed in blocks of this many neighbours (the per-atom stack buffers).
constexpr int kInline = 512;

// Scatter into a neighbour's slot (one thread: a plain add).
HWY_INLINE void scatter_add(double* a, double v) {
  *a += v;
}

// The same pointer, hidden from the optimiser: lanes stored to a small stack array are then read back by
// scalar loads instead of being extracted from the register one by one with shuffles.
template <class T>
HWY_INLINE T* opaque(T* p) {
  asm("" : "+r"(p));
  return p;
}

// Tables and constants of one kernel launch (tab1: the one-type force table, see EamPairTables; zbl: the
// ZBL pair term).
struct PairConsts {
  const PosRec* rec;
  const double* tab;
  int nr, nt;
  double rdr, cutsq;
  const double* tab1 = nullptr;
  const potentials::ZblTerm* zbl = nullptr;
};

// Distance stage for neighbours nbr[k0..k1) of the atom at (xi, yi, zi): in-cut-off ones are appended to bj
// and brsq (and their offsets to bdx, bdy, bdz when `offsets` is set); returns how many. `mask`
// (k1 − k0 ≤ kMaskLen) gets the in-cut-off bits, every word written.
template <bool offsets>
HWY_INLINE int compact_block(const PosRec* rec, const int* nbr, int64_t k0, int64_t k1, V xi, V yi, V zi,
                             V cutsq, int* bj, double* brsq, double* bdx, double* bdy, double* bdz,
                             uint64_t* mask = nullptr) {
  const D d;
  const DI di;
  int cnt = 0;
  // The in-cut-off bits collect in registers and are stored once: an OR into memory per group made each
  // group wait for the last one's store.
  uint64_t bits[kMaskWords] = {};
  for (int64_t k = k0; k < k1; k += N) {
    const int nl = static_cast<int>(std::min<int64_t>(N, k1 - k));
    const double* p[N];
    for (int l = 0; l < N; ++l) p[l] = &rec[nbr[k + (l < nl ? l : 0)]].x;
    V c[4];
    ws::Transpose4(d, p, c);
    const V dx = hn::Sub(xi, c[0]), dy = hn::Sub(yi, c[1]), dz = hn::Sub(zi, c[2]);
    const V rsq = hn::Add(hn::Add(hn::Mul(dx, dx), hn::Mul(dy, dy)), hn::Mul(dz, dz));
    const auto in = hn::And(hn::Lt(rsq, cutsq), hn::FirstN(d, nl));
    const uint64_t b = ws::MaskBits(d, in);
    if (mask) {
      const int64_t rel = k - k0;  // a multiple of N: a group's bits never straddle two words
      const uint64_t sh = b << (rel & 63);
      for (int w = 0; w < kMaskWords; ++w) bits[w] |= (rel >> 6) == w ? sh : 0;
    }
    ws::CompressBitsTo(di, ws::LoadN(di, nbr + k, nl), b, bj + cnt);
    ws::CompressBitsTo(d, rsq, b, brsq + cnt);
    if constexpr (offsets) {
      ws::CompressBitsTo(d, dx, b, bdx + cnt);
      ws::CompressBitsTo(d, dy, b, bdy + cnt);
      ws::CompressBitsTo(d, dz, b, bdz + cnt);
    }
    cnt += static_cast<int>(hwy::PopCount(b));
  }
  if (mask)
    for (int w = 0; w < kMaskWords; ++w) mask[w] = bits[w];
  return cnt;
}

// Knot index (stored to m) and fraction for Lanes distances: LAMMPS's p = r·rdr + 1 look-up, exact in fp64.
HWY_INLINE V locate(V r, V rdr, hn::Vec<DI> nrm1, int* m) {
  const D d;
  const DI di;
  const V one = hn::Set(d, 1.0);
  V p = hn::Add(hn::Mul(r, rdr), one);
  const auto mi = hn::Min(hn::DemoteTo(di, p), nrm1);
  hn::Store(mi, di, m);
  p = hn::Sub(p, hn::PromoteTo(d, mi));
  return hn::Min(p, one);
}

// Distances of one atom's cnt compacted pairs: r and (if brc is not null) 1/r into br and brc, padded to a
// whole vector with r = 1. Exact (fp64 sqrt and divide) or, for the reduced-precision modes, from the
// approximate 1/√r². A loop of its own, so that the long sqrt and divide latencies of successive groups
// overlap instead of stalling each group's table stage.
template <bool approx>
HWY_INLINE void distances(const double* brsq, int cnt, double* br, double* brc) {
  const D d;
  const V one = hn::Set(d, 1.0);
  for (int c0 = 0; c0 < cnt; c0 += N) {
    const V rsq = hn::IfThenElse(hn::FirstN(d, static_cast<size_t>(std::min(N, cnt - c0))),
                                 hn::LoadU(d, brsq + c0), one);
    V r, recip;
    if constexpr (approx) {
      recip = ws::ApproxRsqrt(d, rsq);
      r = hn::Mul(rsq, recip);
    } else {
      r = hn::Sqrt(rsq);
      if (brc) recip = hn::Div(one, r);
    }
    hn::Store(r, d, br + c0);
    if (brc) hn::Store(recip, d, brc + c0);
  }
}

// Density table stage over cnt compacted pairs of atom i at distances br: returns Σ ρ_{j→i} (lane-wise) and
// scatters ρ_{i→j} onto j. With one atom type ρ_{i→j} = ρ_{j→i}, so one transpose serves both.
template <bool single>
HWY_INLINE V density_table_r(const PairConsts& k, size_t base, const int* bj, const double* br, int cnt,
                             double* rho, V rhoi) {
  const D d;
  const DI di;
  HWY_ALIGN int m[N];
  HWY_ALIGN double tj[N];
  const V vrdr = hn::Set(d, k.rdr);
  const auto nrm1 = hn::Set(di, k.nr - 1);
  for (int c0 = 0; c0 < cnt; c0 += N) {
    const int nl = std::min(N, cnt - c0);
    const auto tail = hn::FirstN(d, static_cast<size_t>(nl));
    const V p = locate(hn::Load(d, br + c0), vrdr, nrm1, m);
    const int* mm = opaque(m);
    const double* q[N];
    for (int l = 0; l < N; ++l) {
      const size_t pair = single || l >= nl ? 0 : base + k.rec[bj[c0 + l]].type - 1;
      q[l] = k.tab + (pair * (k.nr + 1) + mm[l]) * 8;
    }
    V a[4];
    ws::Transpose4(d, q, a);
    const V vi = hn::MulAdd(hn::MulAdd(hn::MulAdd(a[0], p, a[1]), p, a[2]), p, a[3]);
    rhoi = hn::Add(rhoi, hn::IfThenElseZero(tail, vi));
    V vj = vi;
    if constexpr (!single) {
      const double* q4[N];
      for (int l = 0; l < N; ++l) q4[l] = q[l] + 4;
      V b[4];
      ws::Transpose4(d, q4, b);
      vj = hn::MulAdd(hn::MulAdd(hn::MulAdd(b[0], p, b[1]), p, b[2]), p, b[3]);
    }
    hn::Store(vj, d, tj);
    const double* t = opaque(tj);
    for (int l = 0; l < nl; ++l) scatter_add(rho + bj[c0 + l], t[l]);
  }
  return rhoi;
}

template <bool single, bool approx>
void density(const EamPairTables& t, const HalfPairs& hp, double* rho) {
  const PairConsts k{hp.rec.data(), t.dens.data(), t.nr, t.ntypes, t.rdr, t.cutmax * t.cutmax};
  const int64_t* off = hp.offset.data();
  const int* nbr = hp.nbr.data();
  uint64_t* cut_mask = hp.cut_mask.data();
  int* ncut = hp.ncut.data();
  // Atoms in blocks; within a block the distance stage (compaction, sqrt) of the next atom is issued before
  // the table stage of this one, so the divider works beside the table stage's shuffles.
  constexpr int kBlock = 64;
  const int first = hp.atom_begin, last = hp.atom_end;
  const int nblocks = (last - first + kBlock - 1) / kBlock;
  Kokkos::parallel_for("eam_density_half_simd", Kokkos::RangePolicy<Exec>(0, nblocks), [=](const int blk) {
    struct Stage {
      HWY_ALIGN int bj[kMaskLen + kPad];
      HWY_ALIGN double brsq[kMaskLen + kPad];
      HWY_ALIGN double br[kMaskLen + kPad];
      int cnt;
      bool longlist;
    };
    Stage st[2];
    const D d;
    const V vcut = hn::Set(d, k.cutsq);
    const int i0 = first + blk * kBlock, i1 = std::min(last, i0 + kBlock);
    auto prep = [&](int i, Stage& g) {
      // The list entries of the atom six places on, and its mask line for writing (≈ 2 % on the medians).
      if (i + 6 < last) {
        const char* q = reinterpret_cast<const char*>(nbr + off[i + 6]);
        hwy::Prefetch(q);
        hwy::Prefetch(q + 64);
        hwy::Prefetch(q + 128);
        __builtin_prefetch(cut_mask + kMaskWords * static_cast<size_t>(i + 6), 1);
      }
      const int64_t b = off[i], e = off[i + 1];
      g.longlist = e - b > kMaskLen;
      if (g.longlist) return;
      const PosRec ri = k.rec[i];
      const V xi = hn::Set(d, ri.x), yi = hn::Set(d, ri.y), zi = hn::Set(d, ri.z);
      uint64_t* mask = cut_mask + kMaskWords * static_cast<size_t>(i);  // every word written
      g.cnt = compact_block<false>(k.rec, nbr, b, e, xi, yi, zi, vcut, g.bj, g.brsq, nullptr, nullptr,
                                   nullptr, mask);
      ncut[i] = g.cnt;
      distances<approx>(g.brsq, g.cnt, g.br, nullptr);
    };
    prep(i0, st[0]);
    for (int i = i0; i < i1; ++i) {
      Stage& g = st[(i - i0) & 1];
      if (i + 1 < i1) prep(i + 1, st[(i + 1 - i0) & 1]);
      const PosRec ri = k.rec[i];
      const size_t base = static_cast<size_t>(ri.type - 1) * k.nt;
      V rhoi = hn::Zero(d);
      if (!g.longlist) {
        rhoi = density_table_r<single>(k, base, g.bj, g.br, g.cnt, rho, rhoi);
      } else {
        HWY_ALIGN int bj[kInline + kPad];
        HWY_ALIGN double brsq[kInline + kPad], br[kInline + kPad];
        const V xi = hn::Set(d, ri.x), yi = hn::Set(d, ri.y), zi = hn::Set(d, ri.z);
        const int64_t b = off[i], e = off[i + 1];
        for (int64_t k0 = b; k0 < e; k0 += kInline) {
          const int64_t k1 = std::min<int64_t>(e, k0 + kInline);
          const int cnt =
              compact_block<false>(k.rec, nbr, k0, k1, xi, yi, zi, vcut, bj, brsq, nullptr, nullptr, nullptr);
          distances<approx>(brsq, cnt, br, nullptr);
          rhoi = density_table_r<single>(k, base, bj, br, cnt, rho, rhoi);
        }
        ncut[i] = -1;
      }
      scatter_add(rho + i, hn::GetLane(hn::SumOfLanes(d, rhoi)));
    }
  });
}

// Per-atom accumulators of the force pass.
struct ForceAcc {
  V fx, fy, fz, e;
};

// f[3·js[l] + 0..2] −= (fx, fy, fz)[l] for lanes l < nl. With four or eight lanes the three vectors are
// transposed into (x, y, z, 0) rows and each neighbour takes one 256-bit load, subtract and store; the fourth
// double (the next record's x, or the one spare double past the last record) gets +0 subtracted, which leaves
// every value's bits as they were (x − (+0) = x, also for −0 and NaN). a − b is a + (−b) in IEEE arithmetic,
// so the bits equal three scalar updates. Single-threaded only: the fourth double belongs to another record.
HWY_INLINE void scatter_rows(double* f, const int* js, int nl, V fx, V fy, V fz) {
  const D d;
#if HWY_TARGET <= HWY_AVX3
  if constexpr (N == 8) {
    // Lanes (l, l + 2) pair up per 128-bit block; two-table permutes (not in this Highway) build four rows
    // per register.
    const __m512d zero = _mm512_setzero_pd();
    const __m512d a = _mm512_unpacklo_pd(fx.raw, fy.raw), b = _mm512_unpackhi_pd(fx.raw, fy.raw);
    const __m512d c = _mm512_unpacklo_pd(fz.raw, zero), e = _mm512_unpackhi_pd(fz.raw, zero);
    const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    alignas(64) double rows[8][4];  // row (l >> 1) + 4 (l & 1) holds lane l
    _mm512_store_pd(rows[0], _mm512_permutex2var_pd(a, lo, c));
    _mm512_store_pd(rows[2], _mm512_permutex2var_pd(a, hi, c));
    _mm512_store_pd(rows[4], _mm512_permutex2var_pd(b, lo, e));
    _mm512_store_pd(rows[6], _mm512_permutex2var_pd(b, hi, e));
    const double(*row)[4] = opaque(rows);
    for (int l = 0; l < nl; ++l) {
      double* fj = f + 3 * static_cast<size_t>(js[l]);
      _mm256_storeu_pd(fj, _mm256_sub_pd(_mm256_loadu_pd(fj), _mm256_load_pd(row[(l >> 1) + 4 * (l & 1)])));
    }
    return;
  }
#endif
#if HWY_TARGET != HWY_SCALAR
  if constexpr (N == 4) {
    const V zero = hn::Zero(d);
    const V a = hn::InterleaveLower(d, fx, fy), b = hn::InterleaveUpper(d, fx, fy);      // x0 y0 | x2 y2
    const V c = hn::InterleaveLower(d, fz, zero), e = hn::InterleaveUpper(d, fz, zero);  // z0 0 | z2 0
    const V row[4] = {hn::ConcatLowerLower(d, c, a), hn::ConcatLowerLower(d, e, b),
                      hn::ConcatUpperUpper(d, c, a), hn::ConcatUpperUpper(d, e, b)};
    for (int l = 0; l < nl; ++l) {
      double* fj = f + 3 * static_cast<size_t>(js[l]);
      hn::StoreU(hn::Sub(hn::LoadU(d, fj), row[l]), d, fj);
    }
    return;
  }
#endif
  {
    HWY_ALIGN double tx[N], ty[N], tz[N];
    hn::Store(fx, d, tx), hn::Store(fy, d, ty), hn::Store(fz, d, tz);
    for (int l = 0; l < nl; ++l) {
      double* fj = f + 3 * static_cast<size_t>(js[l]);
      fj[0] -= tx[l], fj[1] -= ty[l], fj[2] -= tz[l];
    }
  }
}

// Force table stage for Lanes (nl valid) in-cut-off pairs of atom i (type ti) with offsets dx, dy, dz,
// squared distances rsq, distances r, inverse distances recip and record indices js. zbl: the ZBL term is
// added to the pairs within its outer cut-off — a group without one costs a compare; the few close pairs of
// a collision cascade are evaluated lane by lane in LAMMPS's scalar arithmetic (PairZBL::compute).
template <bool single, bool zbl>
HWY_INLINE void force_group(const PairConsts& k, size_t base, int ti, const double* fp, double* f, V fpi,
                            V dx, V dy, V dz, const double* rsq, V r, V recip, const int* js, int nl,
                            ForceAcc& a) {
  const D d;
  const DI di;
  HWY_ALIGN int m[N];
  const auto tail = hn::FirstN(d, static_cast<size_t>(nl));
  const V p = locate(r, hn::Set(d, k.rdr), hn::Set(di, k.nr - 1), m);
  const int* mm = opaque(m);
  const double* q[N];
  // F' of the partners. Lanes past nl index record 0, which exists.
  const auto jv = hn::IfThenElseZero(hn::FirstN(di, static_cast<size_t>(nl)), hn::LoadU(di, js));
  const V fpj = hn::GatherIndex(d, fp, hn::PromoteTo(hn::Rebind<int64_t, D>(), jv));
  V z2p, z2, rhoip, rhojp;
  if constexpr (single) {
    // One cache line per knot: r·φ's value coefficients a..d and ρ'. (r·φ)' = rdr·((3a·p + 2b)·p + c), as
    // LAMMPS's z2r_spline[0..2], comes out of the value's Horner steps: t1 = a·p + b, t2 = t1·p + c,
    // (3a·p + 2b)·p + c = (a·p + t1)·p + t2.
    for (int l = 0; l < N; ++l) q[l] = k.tab1 + static_cast<size_t>(mm[l]) * 8;
    const double* q4[N];
    for (int l = 0; l < N; ++l) q4[l] = q[l] + 4;
    V z[4], w[4];
    ws::Transpose4(d, q, z);   // r·φ c3..c6
    ws::Transpose4(d, q4, w);  // ρ' c0..c2, padding
    const V t1 = hn::MulAdd(z[0], p, z[1]);
    const V t2 = hn::MulAdd(t1, p, z[2]);
    z2 = hn::MulAdd(t2, p, z[3]);
    z2p = hn::Mul(hn::MulAdd(hn::MulAdd(z[0], p, t1), p, t2), hn::Set(d, k.rdr));
    rhoip = rhojp = hn::MulAdd(hn::MulAdd(w[0], p, w[1]), p, w[2]);
  } else {
    const int* jj = js;
    for (int l = 0; l < N; ++l) {
      const size_t pair = l >= nl ? 0 : base + k.rec[jj[l]].type - 1;
      q[l] = k.tab + (pair * (k.nr + 1) + mm[l]) * 16;
    }
    const double* qo[N];
    V z[4], u[4], w[4], s[4];
    ws::Transpose4(d, q, z);  // r·φ c0..c3
    for (int l = 0; l < N; ++l) qo[l] = q[l] + 4;
    ws::Transpose4(d, qo, u);  // r·φ c4..c6, ρ_{i→j} c0
    for (int l = 0; l < N; ++l) qo[l] = q[l] + 8;
    ws::Transpose4(d, qo, w);  // ρ_{i→j} c1..c2, ρ_{j→i} c0..c1
    for (int l = 0; l < N; ++l) qo[l] = q[l] + 12;
    ws::Transpose4(d, qo, s);  // ρ_{j→i} c2
    z2p = hn::MulAdd(hn::MulAdd(z[0], p, z[1]), p, z[2]);
    z2 = hn::MulAdd(hn::MulAdd(hn::MulAdd(z[3], p, u[0]), p, u[1]), p, u[2]);
    rhoip = hn::MulAdd(hn::MulAdd(u[3], p, w[0]), p, w[1]);
    rhojp = hn::MulAdd(hn::MulAdd(w[2], p, w[3]), p, s[0]);
  }
  const V phi = hn::Mul(z2, recip);
  const V phip = hn::Sub(hn::Mul(z2p, recip), hn::Mul(phi, recip));
  const V psip = hn::Add(hn::Add(hn::Mul(fpi, rhojp), hn::Mul(fpj, rhoip)), phip);
  V fpair = hn::IfThenElseZero(tail, hn::Mul(hn::Sub(hn::Zero(d), psip), recip));
  V e = hn::IfThenElseZero(tail, phi);
  if constexpr (zbl) {
    const potentials::ZblTerm& z = *k.zbl;
    const uint64_t near = ws::MaskBits(d, hn::And(hn::Lt(hn::LoadU(d, rsq), hn::Set(d, z.outer_sq)), tail));
    if (near) {
      HWY_ALIGN double zf[N], ze[N];
      for (int l = 0; l < N; ++l) {
        zf[l] = ze[l] = 0.0;
        if ((near >> l) & 1)
          ze[l] = potentials::zbl_pair(z.at(ti, k.rec[js[l]].type), z.inner, z.inner_sq, rsq[l], zf[l]);
      }
      fpair = hn::Add(fpair, hn::Load(d, zf));
      e = hn::Add(e, hn::Load(d, ze));
    }
  }
  const V fx = hn::Mul(dx, fpair), fy = hn::Mul(dy, fpair), fz = hn::Mul(dz, fpair);
  a.fx = hn::Add(a.fx, fx);
  a.fy = hn::Add(a.fy, fy);
  a.fz = hn::Add(a.fz, fz);
  a.e = hn::Add(a.e, e);
  scatter_rows(f, js, nl, fx, fy, fz);
}

template <bool single, bool approx, bool zbl>
double force(const EamPairTables& t, const HalfPairs& hp, const double* fp, double* f) {
  const PairConsts k{hp.rec.data(),       t.force.data(),  t.nr,  t.ntypes, t.rdr,
                     t.cutmax * t.cutmax, t.force1.data(), &t.zbl};
  const int64_t* off = hp.offset.data();
  const int* nbr = hp.nbr.data();
  const uint64_t* cut_mask = hp.cut_mask.data();
  const int* ncut = hp.ncut.data();
  // Atoms in blocks; within a block the next atom's neighbour offsets, r and 1/r (sqrt and divide) are
  // computed before this atom's table stage, so the divider works beside the table stage's shuffles. (The
  // density pass's loop has the same shape; one template for both measured 2 % slower per step.)
  constexpr int kBlock = 64;
  const int first = hp.atom_begin, last = hp.atom_end;
  const int nblocks = (last - first + kBlock - 1) / kBlock;
  double energy = 0.0;
  Kokkos::parallel_reduce(
      "eam_force_half_simd", Kokkos::RangePolicy<Exec>(0, nblocks),
      [=](const int blk, double& acc) {
        struct Stage {
          HWY_ALIGN int bj[kMaskLen + kPad];
          HWY_ALIGN double bdx[kMaskLen + kPad], bdy[kMaskLen + kPad], bdz[kMaskLen + kPad];
          HWY_ALIGN double brsq[kMaskLen + kPad], br[kMaskLen + kPad], brc[kMaskLen + kPad];
          int cnt;
        };
        Stage st[2];
        const D d;
        const hn::ScalableTag<int32_t> dw;  // list indices, a whole vector of them at a time
        constexpr int W = static_cast<int>(ws::kLanes<int32_t>);
        const V zero = hn::Zero(d);
        const int i0 = first + blk * kBlock, i1 = std::min(last, i0 + kBlock);
        // Offsets and distances of atom i's in-cut-off pairs, as the density pass marked them.
        auto prep = [&](int i, Stage& g) {
          // The list entries and the mask of the atom six places on, asked for now: ≈ 3 % faster than
          // leaving the two streams to the hardware prefetcher.
          if (i + 6 < last) {
            const char* q = reinterpret_cast<const char*>(nbr + off[i + 6]);
            hwy::Prefetch(q);
            hwy::Prefetch(q + 64);
            hwy::Prefetch(q + 128);
            hwy::Prefetch(cut_mask + kMaskWords * static_cast<size_t>(i + 6));
          }
          if (ncut[i] < 0) return;
          const PosRec ri = k.rec[i];
          const V xi = hn::Set(d, ri.x), yi = hn::Set(d, ri.y), zi = hn::Set(d, ri.z);
          const int64_t b = off[i], e = off[i + 1];
          const uint64_t* mask = cut_mask + kMaskWords * static_cast<size_t>(i);
          int n = 0;
          for (int64_t q = b; q < e; q += W) {
            const int64_t rel = q - b;  // a multiple of W: within one word
            const int64_t rest = e - q;
            const uint64_t tail = rest >= W ? (W >= 64 ? ~0ull : (1ull << W) - 1) : (1ull << rest) - 1;
            const uint64_t in = (mask[rel >> 6] >> (rel & 63)) & tail;
            const auto jv = ws::LoadN(dw, nbr + q, static_cast<size_t>(rest));
            n += static_cast<int>(ws::CompressBitsTo(dw, jv, in, g.bj + n));
          }
          for (int c0 = 0; c0 < n; c0 += N) {
            const int nl = std::min(N, n - c0);
            const auto tail = hn::FirstN(d, static_cast<size_t>(nl));
            const double* p[N];
            for (int l = 0; l < N; ++l) p[l] = &k.rec[g.bj[c0 + (l < nl ? l : 0)]].x;
            V c[4];
            ws::Transpose4(d, p, c);
            const V dx = hn::IfThenElseZero(tail, hn::Sub(xi, c[0]));
            const V dy = hn::IfThenElseZero(tail, hn::Sub(yi, c[1]));
            const V dz = hn::IfThenElseZero(tail, hn::Sub(zi, c[2]));
            hn::Store(dx, d, g.bdx + c0);
            hn::Store(dy, d, g.bdy + c0);
            hn::Store(dz, d, g.bdz + c0);
            hn::Store(hn::Add(hn::Add(hn::Mul(dx, dx), hn::Mul(dy, dy)), hn::Mul(dz, dz)), d, g.brsq + c0);
          }
          g.cnt = n;
          distances<approx>(g.brsq, n, g.br, g.brc);
        };
        // Table stage over cnt pairs of atom i in the given buffers.
        // The accumulators go in and out by value, so that they stay in registers across the groups.
        auto tables = [&](ForceAcc a, size_t base, int ti, V fpi, const int* js, const double* bdx,
                          const double* bdy, const double* bdz, const double* brsq, const double* br,
                          const double* brc, int cnt) {
          for (int c0 = 0; c0 < cnt; c0 += N) {
            const int nl = std::min(N, cnt - c0);
            const auto tail = hn::FirstN(d, static_cast<size_t>(nl));
            // Idle lanes read zeros: past cnt the buffers may hold stale stack values, and 0 · NaN is NaN.
            force_group<single, zbl>(k, base, ti, fp, f, fpi, hn::IfThenElseZero(tail, hn::Load(d, bdx + c0)),
                                     hn::IfThenElseZero(tail, hn::Load(d, bdy + c0)),
                                     hn::IfThenElseZero(tail, hn::Load(d, bdz + c0)), brsq + c0,
                                     hn::Load(d, br + c0), hn::Load(d, brc + c0), js + c0, nl, a);
          }
          return a;
        };
        prep(i0, st[0]);
        for (int i = i0; i < i1; ++i) {
          Stage& g = st[(i - i0) & 1];
          if (i + 1 < i1) prep(i + 1, st[(i + 1 - i0) & 1]);
          const PosRec ri = k.rec[i];
          const size_t base = static_cast<size_t>(ri.type - 1) * k.nt;
          const V fpi = hn::Set(d, fp[i]);
          ForceAcc a{zero, zero, zero, zero};
          if (ncut[i] >= 0) {
            a = tables(a, base, ri.type, fpi, g.bj, g.bdx, g.bdy, g.bdz, g.brsq, g.br, g.brc, g.cnt);
          } else {
            // A list past the masks: distances tested again, in blocks of the stack buffers.
            HWY_ALIGN int bj[kInline + kPad];
            HWY_ALIGN double bdx[kInline + kPad], bdy[kInline + kPad], bdz[kInline + kPad];
            HWY_ALIGN double brsq[kInline + kPad], br[kInline + kPad], brc[kInline + kPad];
            const V xi = hn::Set(d, ri.x), yi = hn::Set(d, ri.y), zi = hn::Set(d, ri.z);
            const V vcut = hn::Set(d, k.cutsq);
            for (int64_t k0 = off[i]; k0 < off[i + 1]; k0 += kInline) {
              const int64_t k1 = std::min<int64_t>(off[i + 1], k0 + kInline);
              const int cnt =
                  compact_block<true>(k.rec, nbr, k0, k1, xi, yi, zi, vcut, bj, brsq, bdx, bdy, bdz);
              distances<approx>(brsq, cnt, br, brc);
              a = tables(a, base, ri.type, fpi, bj, bdx, bdy, bdz, brsq, br, brc, cnt);
            }
          }
          // (Σfx, Σfy, Σfz, Σe) in one tree.
          double s[4];
          ws::Sum4(d, a.fx, a.fy, a.fz, a.e, s);
          double* fi = f + 3 * static_cast<size_t>(i);
          scatter_add(fi, s[0]);
          scatter_add(fi + 1, s[1]);
          scatter_add(fi + 2, s[2]);
          acc += s[3];
        }
      },
      energy);
  return energy;
}

// F'(ρ̄) of nlocal atoms of one type, Lanes at a time: LAMMPS's look-up and Horner order per atom with
// separate multiply and add, so the same bits as the scalar loop; the energies are added one by one in atom
// order, as there. Without `with_energy` only F' is written (returns 0).
template <bool with_energy>
double embed(const potentials::EamTables& t, int nlocal, const double* rho, double* fp) {
  const double* table = t.frho.data() + static_cast<size_t>(t.type2frho[1]) * (t.nrho + 1) * 7;
  const double rdrho = t.rdrho, rhomax = t.rhomax;
  const int nrho = t.nrho;
  double energy = 0.0;
  Kokkos::parallel_reduce(
      "eam_embed_simd", Kokkos::RangePolicy<Exec>(0, (nlocal + N - 1) / N),
      [=](const int group, double& acc) {
        const D d;
        const DI di;
        const int i0 = N * group, nl = std::min(N, nlocal - i0);
        const V one = hn::Set(d, 1.0), vmax = hn::Set(d, rhomax);
        const V r = ws::LoadN(d, rho + i0, static_cast<size_t>(nl));
        V p = hn::Add(hn::Mul(r, hn::Set(d, rdrho)), one);
        // Clamped to [1, nrho-1] before the conversion, as locate_rho (a NaN or huge density stays in the
        // table).
        const V top = hn::Set(d, static_cast<double>(nrho - 1));
        V pc = hn::IfThenElse(hn::Lt(p, top), p, top);
        pc = hn::IfThenElse(hn::Gt(pc, one), pc, one);
        const auto mi = hn::DemoteTo(di, pc);
        HWY_ALIGN int m[N];
        hn::Store(mi, di, m);
        p = hn::Min(hn::Sub(p, hn::PromoteTo(d, mi)), one);
        const double* q[N];
        const double* q4[N];
        for (int l = 0; l < N; ++l) q[l] = table + static_cast<size_t>(m[l]) * 7, q4[l] = q[l] + 4;
        V c[4], e4[4];
        ws::Transpose4(d, q, c);    // c0..c3
        ws::Transpose4(d, q4, e4);  // c4..c6 (and the next knot's c0, in the table: m < nrho)
        const V f1 = hn::Add(hn::Mul(hn::Add(hn::Mul(c[0], p), c[1]), p), c[2]);
        HWY_ALIGN double out[N];
        hn::Store(f1, d, out);
        std::memcpy(fp + i0, out, sizeof(double) * static_cast<size_t>(nl));
        if constexpr (!with_energy) return;
        V e = hn::Add(hn::Mul(hn::Add(hn::Mul(hn::Add(hn::Mul(c[3], p), e4[0]), p), e4[1]), p), e4[2]);
        // Beyond the table F continues linearly, as in the scalar loop.
        e = hn::IfThenElse(hn::Gt(r, vmax), hn::Add(e, hn::Mul(f1, hn::Sub(r, vmax))), e);
        HWY_ALIGN double phi[N];
        hn::Store(e, d, phi);
        for (int l = 0; l < nl; ++l) acc += phi[l];
      },
      energy);
  return energy;
}

}  // namespace

// The per-target entry points HWY_EXPORT tables (one template instance per mode, chosen here, per pass).
void DensityHalf(const EamPairTables& t, const HalfPairs& hp, bool approx, double* rho) {
  if (t.ntypes == 1)
    approx ? density<true, true>(t, hp, rho) : density<true, false>(t, hp, rho);
  else
    approx ? density<false, true>(t, hp, rho) : density<false, false>(t, hp, rho);
}

double ForceHalf(const EamPairTables& t, const HalfPairs& hp, bool approx, const double* fp, double* f) {
  // The ZBL term is a variant of its own: plain EAM runs the loop it always ran.
  if (t.zbl.active()) {
    if (t.ntypes == 1)
      return approx ? force<true, true, true>(t, hp, fp, f) : force<true, false, true>(t, hp, fp, f);
    return approx ? force<false, true, true>(t, hp, fp, f) : force<false, false, true>(t, hp, fp, f);
  }
  if (t.ntypes == 1)
    return approx ? force<true, true, false>(t, hp, fp, f) : force<true, false, false>(t, hp, fp, f);
  return approx ? force<false, true, false>(t, hp, fp, f) : force<false, false, false>(t, hp, fp, f);
}

double EmbedOneType(const potentials::EamTables& t, int nlocal, const double* rho, double* fp,
                    bool with_energy) {
  return with_energy ? embed<true>(t, nlocal, rho, fp) : embed<false>(t, nlocal, rho, fp);
}

}  // namespace wmd::md::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wmd::md {

HWY_EXPORT(DensityHalf);
HWY_EXPORT(ForceHalf);
HWY_EXPORT(EmbedOneType);

void simd_density_half(const EamPairTables& t, const HalfPairs& hp, bool approx, double* rho) {
  HWY_DYNAMIC_DISPATCH(DensityHalf)(t, hp, approx, rho);
}

double simd_force_half(const EamPairTables& t, const HalfPairs& hp, bool approx, const double* fp,
                       double* f) {
  return HWY_DYNAMIC_DISPATCH(ForceHalf)(t, hp, approx, fp, f);
}

double simd_embed_one_type(const potentials::EamTables& t, int nlocal, const double* rho, double* fp,
                           bool with_energy) {
  return HWY_DYNAMIC_DISPATCH(EmbedOneType)(t, nlocal, rho, fp, with_energy);
}

}  // namespace wmd::md
#endif
