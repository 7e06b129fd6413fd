#include "md/mesh/pe_kernels32.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__AVX512DQ__)
#define WMD_PE_AVX512 1
#include <immintrin.h>
#endif

namespace wmd::md::mesh {
namespace {

// Slots are handled in blocks of this many: stack buffers, whatever the window size.
constexpr int kBlock = 128;

}  // namespace

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

#ifdef WMD_PE_AVX512
namespace {

inline __mmask16 lanes16(int n) {
  return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u);
}

// out[c] lane l = q[l][off + c], c < 4: sixteen 16-byte records loaded whole, transposed in registers.
inline void transpose16x4(const float* const q[16], int off, __m512 out[4]) {
  __m512 row[4];
  for (int g = 0; g < 4; ++g) {
    // 128-bit lane j of row g holds record 4j + g.
    __m512 v = _mm512_castps128_ps512(_mm_loadu_ps(q[g] + off));
    v = _mm512_insertf32x4(v, _mm_loadu_ps(q[4 + g] + off), 1);
    v = _mm512_insertf32x4(v, _mm_loadu_ps(q[8 + g] + off), 2);
    row[g] = _mm512_insertf32x4(v, _mm_loadu_ps(q[12 + g] + off), 3);
  }
  const __m512 t0 = _mm512_unpacklo_ps(row[0], row[1]), t1 = _mm512_unpackhi_ps(row[0], row[1]);
  const __m512 t2 = _mm512_unpacklo_ps(row[2], row[3]), t3 = _mm512_unpackhi_ps(row[2], row[3]);
  auto lo = [](__m512 a, __m512 b) {
    return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
  };
  auto hi = [](__m512 a, __m512 b) {
    return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
  };
  out[0] = lo(t0, t2), out[1] = hi(t0, t2), out[2] = lo(t1, t3), out[3] = hi(t1, t3);
}

inline __m512 madd(__m512 a, __m512 b, __m512 c) {
  return _mm512_add_ps(_mm512_mul_ps(a, b), c);
}

// f32_locate for 16 distances: knot m (stored) and fraction p.
inline __m512 locate16(__m512 r, const PeTables32& t, int* m) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 p = _mm512_add_ps(_mm512_mul_ps(r, _mm512_set1_ps(t.rdr)), one);
  __m512i mi = _mm512_min_epi32(_mm512_cvttps_epi32(p), _mm512_set1_epi32(t.nr - 1));
  mi = _mm512_max_epi32(mi, _mm512_setzero_si512());
  _mm512_store_si512(m, mi);
  p = _mm512_sub_ps(p, _mm512_cvtepi32_ps(mi));
  return _mm512_min_ps(p, one);
}

// Displacements x_i − (x_j + shift·L) of slots [c, c + 16) (tail lanes zero) and their r².
struct Disp16 {
  __m512 dx, dy, dz, rsq;
};
inline Disp16 displace16(const ShiftOffsets32& s, const __m512 xi[3], const PeSlots32& in, int c,
                         __mmask16 tail) {
  const __m512i code = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(tail, in.shift + c));
  Disp16 d;
  const float* plane[3] = {in.x, in.y, in.z};
  __m512* out[3] = {&d.dx, &d.dy, &d.dz};
  for (int a = 0; a < 3; ++a) {
    const __m512 xj = _mm512_maskz_loadu_ps(tail, plane[a] + c);
    const __m512 off = _mm512_permutex2var_ps(_mm512_load_ps(s.v[a]), code, _mm512_load_ps(s.v[a] + 16));
    *out[a] = _mm512_maskz_sub_ps(tail, _mm512_sub_ps(xi[a], xj), off);
  }
  d.rsq = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(d.dx, d.dx), _mm512_mul_ps(d.dy, d.dy)),
                        _mm512_mul_ps(d.dz, d.dz));
  return d;
}

// Record pointers of 16 compacted pairs (tail lanes point at pair 0's knot: valid memory, masked later).
inline void records16(const float* tab, int stride, const PeTables32& t, int ti, const int* bt, int c0,
                      int nl, const int* m, const float* q[16]) {
  const size_t knots = static_cast<size_t>(t.nr) + 1;
  const size_t base = static_cast<size_t>(ti - 1) * t.ntypes;
  for (int l = 0; l < 16; ++l) {
    const size_t pair = t.ntypes == 1 || l >= nl ? 0 : base + bt[c0 + l] - 1;
    q[l] = tab + (pair * knots + m[l]) * stride;
  }
}

}  // namespace

float pe_density32(const PeTables32& t, const ShiftOffsets32& s, int ti, const float xi[3],
                   const PeSlots32& in, int& in_cut) {
  alignas(64) float brsq[kBlock + 16];
  alignas(64) int bt[kBlock + 16];
  alignas(64) int m[16];
  const __m512 vxi[3] = {_mm512_set1_ps(xi[0]), _mm512_set1_ps(xi[1]), _mm512_set1_ps(xi[2])};
  const __m512 cutsq = _mm512_set1_ps(t.cutsq), one = _mm512_set1_ps(1.0f);
  __m512 acc = _mm512_setzero_ps();
  in_cut = 0;
  for (int k0 = 0; k0 < in.n; k0 += kBlock) {
    const int k1 = std::min(in.n, k0 + kBlock);
    int cnt = 0;
    for (int c = k0; c < k1; c += 16) {
      const __mmask16 tail = lanes16(k1 - c);
      const Disp16 d = displace16(s, vxi, in, c, tail);
      const __mmask16 keep = _mm512_mask_cmp_ps_mask(tail, d.rsq, cutsq, _CMP_LT_OQ);
      _mm512_storeu_ps(brsq + cnt, _mm512_maskz_compress_ps(keep, d.rsq));
      if (t.ntypes > 1) {
        const __m512i tj = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(tail, in.type + c));
        _mm512_storeu_si512(bt + cnt, _mm512_maskz_compress_epi32(keep, tj));
      }
      cnt += __builtin_popcount(keep);
    }
    in_cut += cnt;
    for (int c0 = 0; c0 < cnt; c0 += 16) {
      const int nl = std::min(16, cnt - c0);
      const __mmask16 tail = lanes16(nl);
      const __m512 r = _mm512_sqrt_ps(_mm512_mask_loadu_ps(one, tail, brsq + c0));
      const __m512 p = locate16(r, t, m);
      const float* q[16];
      records16(t.dens.data(), 4, t, ti, bt, c0, nl, m, q);
      __m512 a[4];
      transpose16x4(q, 0, a);
      acc = _mm512_mask_add_ps(acc, tail, acc, madd(madd(madd(a[0], p, a[1]), p, a[2]), p, a[3]));
    }
  }
  return _mm512_reduce_add_ps(acc);
}

namespace {

// The force pass repeats the density pass's compaction loop with more planes on purpose: one shared routine
// (a Block struct of all planes, tried 2026-11-22) made the emulator 3–5 % slower. kVirial false drops the
// six virial sums (a sixth of the table stage's arithmetic) on steps that do not report pressure.
template <bool kVirial>
float force32(const PeTables32& t, const ShiftOffsets32& s, int ti, float fpi, const float xi[3],
              const PeSlots32& in, float f[3], float vir[6]) {
  alignas(64) float bdx[kBlock + 16], bdy[kBlock + 16], bdz[kBlock + 16], brsq[kBlock + 16], bfp[kBlock + 16];
  alignas(64) int bt[kBlock + 16];
  alignas(64) int m[16];
  const __m512 vxi[3] = {_mm512_set1_ps(xi[0]), _mm512_set1_ps(xi[1]), _mm512_set1_ps(xi[2])};
  const __m512 cutsq = _mm512_set1_ps(t.cutsq), one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
  const __m512 vfpi = _mm512_set1_ps(fpi);
  const __m512 sign = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(0x80000000u)));
  const __m512 zero = _mm512_setzero_ps();
  __m512 fx = zero, fy = zero, fz = zero, e = zero, v[6] = {zero, zero, zero, zero, zero, zero};
  for (int k0 = 0; k0 < in.n; k0 += kBlock) {
    const int k1 = std::min(in.n, k0 + kBlock);
    int cnt = 0;
    for (int c = k0; c < k1; c += 16) {
      const __mmask16 tail = lanes16(k1 - c);
      const Disp16 d = displace16(s, vxi, in, c, tail);
      const __mmask16 keep = _mm512_mask_cmp_ps_mask(tail, d.rsq, cutsq, _CMP_LT_OQ);
      _mm512_storeu_ps(bdx + cnt, _mm512_maskz_compress_ps(keep, d.dx));
      _mm512_storeu_ps(bdy + cnt, _mm512_maskz_compress_ps(keep, d.dy));
      _mm512_storeu_ps(bdz + cnt, _mm512_maskz_compress_ps(keep, d.dz));
      _mm512_storeu_ps(brsq + cnt, _mm512_maskz_compress_ps(keep, d.rsq));
      _mm512_storeu_ps(bfp + cnt, _mm512_maskz_compress_ps(keep, _mm512_maskz_loadu_ps(tail, in.fp + c)));
      if (t.ntypes > 1) {
        const __m512i tj = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(tail, in.type + c));
        _mm512_storeu_si512(bt + cnt, _mm512_maskz_compress_epi32(keep, tj));
      }
      cnt += __builtin_popcount(keep);
    }
    for (int c0 = 0; c0 < cnt; c0 += 16) {
      const int nl = std::min(16, cnt - c0);
      const __mmask16 tail = lanes16(nl);
      const __m512 r = _mm512_sqrt_ps(_mm512_mask_loadu_ps(one, tail, brsq + c0));
      const __m512 recip = _mm512_div_ps(one, r);
      const __m512 p = locate16(r, t, m);
      const float* q[16];
      records16(t.force.data(), 16, t, ti, bt, c0, nl, m, q);
      __m512 g0[4], g1[4], g2[4];
      transpose16x4(q, 0, g0);  // r·φ c0..c3
      transpose16x4(q, 4, g1);  // r·φ c4..c6, ρ_{i→j} c0
      transpose16x4(q, 8, g2);  // ρ_{i→j} c1..c2, ρ_{j→i} c0..c1
      const __m512 z2p = madd(madd(g0[0], p, g0[1]), p, g0[2]);
      const __m512 z2 = madd(madd(madd(g0[3], p, g1[0]), p, g1[1]), p, g1[2]);
      const __m512 rhoip = madd(madd(g1[3], p, g2[0]), p, g2[1]);
      __m512 rhojp = rhoip;
      if (t.ntypes > 1) {
        __m512 g3[4];
        transpose16x4(q, 12, g3);  // ρ_{j→i} c2
        rhojp = madd(madd(g2[2], p, g2[3]), p, g3[0]);
      }
      // Lanes past cnt may hold an earlier PE's stack bytes: loaded as zero.
      const __m512 dx = _mm512_maskz_load_ps(tail, bdx + c0), dy = _mm512_maskz_load_ps(tail, bdy + c0),
                   dz = _mm512_maskz_load_ps(tail, bdz + c0), fpj = _mm512_maskz_load_ps(tail, bfp + c0);
      const __m512 phi = _mm512_mul_ps(z2, recip);
      const __m512 phip = _mm512_sub_ps(_mm512_mul_ps(z2p, recip), _mm512_mul_ps(phi, recip));
      const __m512 psip =
          _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(vfpi, rhojp), _mm512_mul_ps(fpj, rhoip)), phip);
      const __m512 fpair = _mm512_maskz_mul_ps(tail, _mm512_xor_ps(psip, sign), recip);
      fx = _mm512_add_ps(fx, _mm512_mul_ps(dx, fpair));
      fy = _mm512_add_ps(fy, _mm512_mul_ps(dy, fpair));
      fz = _mm512_add_ps(fz, _mm512_mul_ps(dz, fpair));
      e = _mm512_mask_add_ps(e, tail, e, _mm512_mul_ps(half, phi));
      if constexpr (!kVirial) continue;
      v[0] = _mm512_add_ps(v[0], _mm512_mul_ps(_mm512_mul_ps(dx, dx), fpair));
      v[1] = _mm512_add_ps(v[1], _mm512_mul_ps(_mm512_mul_ps(dy, dy), fpair));
      v[2] = _mm512_add_ps(v[2], _mm512_mul_ps(_mm512_mul_ps(dz, dz), fpair));
      v[3] = _mm512_add_ps(v[3], _mm512_mul_ps(_mm512_mul_ps(dx, dy), fpair));
      v[4] = _mm512_add_ps(v[4], _mm512_mul_ps(_mm512_mul_ps(dx, dz), fpair));
      v[5] = _mm512_add_ps(v[5], _mm512_mul_ps(_mm512_mul_ps(dy, dz), fpair));
    }
  }
  f[0] = _mm512_reduce_add_ps(fx), f[1] = _mm512_reduce_add_ps(fy), f[2] = _mm512_reduce_add_ps(fz);
  if constexpr (kVirial)
    for (int c = 0; c < 6; ++c) vir[c] += 0.5f * _mm512_reduce_add_ps(v[c]);
  return _mm512_reduce_add_ps(e);
}

}  // namespace

float pe_force32(const PeTables32& t, const ShiftOffsets32& s, int ti, float fpi, const float xi[3],
                 const PeSlots32& in, float f[3], float vir[6]) {
  return vir ? force32<true>(t, s, ti, fpi, xi, in, f, vir) : force32<false>(t, s, ti, fpi, xi, in, f, vir);
}

bool pe_kernels32_simd() {
  return true;
}

#else  // portable: md/mesh/pe_kernels.hpp's scalar fp32 kernels, block by block

namespace {

// Displacements and types of slots [k0, k1) into the block buffers.
void displace_block(const ShiftOffsets32& s, const float xi[3], const PeSlots32& in, int k0, int k1,
                    float* dx, float* dy, float* dz, int* tj) {
  for (int k = k0; k < k1; ++k) {
    const int code = in.shift[k];
    dx[k - k0] = (xi[0] - in.x[k]) - s.v[0][code];
    dy[k - k0] = (xi[1] - in.y[k]) - s.v[1][code];
    dz[k - k0] = (xi[2] - in.z[k]) - s.v[2][code];
    tj[k - k0] = in.type[k];
  }
}

}  // namespace

float pe_density32(const PeTables32& t, const ShiftOffsets32& s, int ti, const float xi[3],
                   const PeSlots32& in, int& in_cut) {
  float dx[kBlock], dy[kBlock], dz[kBlock];
  int tj[kBlock];
  float rho = 0.0f;
  in_cut = 0;
  for (int k0 = 0; k0 < in.n; k0 += kBlock) {
    const int k1 = std::min(in.n, k0 + kBlock), n = k1 - k0;
    displace_block(s, xi, in, k0, k1, dx, dy, dz, tj);
    for (int k = 0; k < n; ++k) in_cut += dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k] < t.cutsq;
    rho += f32_density(t.scalar, ti, n, dx, dy, dz, tj);
  }
  return rho;
}

float pe_force32(const PeTables32& t, const ShiftOffsets32& s, int ti, float fpi, const float xi[3],
                 const PeSlots32& in, float f[3], float vir[6]) {
  float dx[kBlock], dy[kBlock], dz[kBlock];
  int tj[kBlock];
  float e = 0.0f, unused[6] = {0, 0, 0, 0, 0, 0};
  if (!vir) vir = unused;
  f[0] = f[1] = f[2] = 0.0f;
  for (int k0 = 0; k0 < in.n; k0 += kBlock) {
    const int k1 = std::min(in.n, k0 + kBlock);
    displace_block(s, xi, in, k0, k1, dx, dy, dz, tj);
    e += f32_force(t.scalar, ti, fpi, k1 - k0, dx, dy, dz, tj, in.fp + k0, f, vir);
  }
  return e;
}

bool pe_kernels32_simd() {
  return false;
}

#endif

}  // namespace wmd::md::mesh
