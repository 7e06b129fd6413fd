// The fp32 PE kernels over the vector width (Google Highway; md/mesh/pe_kernels32.hpp), and the passes over a
// band of PEs that the mesh backend calls once per chunk.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "md/mesh/pe_kernels32.cpp"
// Highway's per-target inclusion: foreach_target.h first, then highway.h.
// clang-format off
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// clang-format on
#include "md/mesh/pe_kernels32.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/simd_ops-inl.h"

#ifndef WMD_MD_MESH_PE_KERNELS32_ONCE_
#define WMD_MD_MESH_PE_KERNELS32_ONCE_
namespace wmd::md::mesh {
namespace {

// Slots are handled in blocks of this many: stack buffers, whatever the window size.
constexpr int kBlock = 128;

}  // namespace
}  // namespace wmd::md::mesh
#endif

HWY_BEFORE_NAMESPACE();
namespace wmd::md::mesh::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
namespace ws = wmd::simd::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
using DI = hn::Rebind<int32_t, D>;
constexpr int N = static_cast<int>(ws::kLanes<float>);

// f32_locate for Lanes distances: knot m (stored) and fraction p.
HWY_INLINE V locate(V r, const PeTables32& t, int* m) {
  const D d;
  const DI di;
  const V one = hn::Set(d, 1.0f);
  V p = hn::Add(hn::Mul(r, hn::Set(d, t.rdr)), one);
  const auto mi = hn::Max(hn::Min(hn::ConvertTo(di, p), hn::Set(di, t.nr - 1)), hn::Zero(di));
  hn::Store(mi, di, m);
  p = hn::Sub(p, hn::ConvertTo(d, mi));
  return hn::Min(p, one);
}

// a·b + c rounded twice, as the PE's scalar arithmetic.
HWY_INLINE V madd(V a, V b, V c) {
  return hn::Add(hn::Mul(a, b), c);
}

// Displacements x_i − (x_j + shift·L) of slots [c, c + Lanes) (tail lanes zero) and their r².
struct Disp {
  V dx, dy, dz, rsq;
};
HWY_INLINE Disp displace(const ShiftOffsets32& s, const V xi[3], const PeSlots32& in, int c, int nl) {
  const D d;
  const DI di;
  const auto tail = hn::FirstN(d, static_cast<size_t>(nl));
  const auto code =
      hn::PromoteTo(di, ws::LoadN(hn::Rebind<int8_t, D>(), in.shift + c, static_cast<size_t>(nl)));
  const float* plane[3] = {in.x, in.y, in.z};
  V off[3];
#if HWY_TARGET <= HWY_AVX3
  if constexpr (N == 16) {
    // The 27 offsets of an axis are two registers: one two-table permute per axis.
    for (int a = 0; a < 3; ++a)
      off[a] = V{_mm512_permutex2var_ps(_mm512_load_ps(s.v[a]), code.raw, _mm512_load_ps(s.v[a] + 16))};
  } else
#endif
  {
    // shift = (code mod 3, code/3 mod 3, code/9) − 1 by multiply and shift (exact for codes below 27), and
    // float(shift)·L is the table's entry bit for bit.
    const auto c3 = hn::ShiftRight<5>(hn::Mul(code, hn::Set(di, 11)));  // code / 3
    const auto c9 = hn::ShiftRight<9>(hn::Mul(code, hn::Set(di, 57)));  // code / 9
    const auto one = hn::Set(di, 1), three = hn::Set(di, 3);
    const hn::Vec<DI> sh[3] = {hn::Sub(hn::Sub(code, hn::Mul(c3, three)), one),
                               hn::Sub(hn::Sub(c3, hn::Mul(c9, three)), one), hn::Sub(c9, one)};
    // s.v[a][26] = shift (1, 1, 1)·L: L per axis in fp32.
    for (int a = 0; a < 3; ++a) off[a] = hn::Mul(hn::ConvertTo(d, sh[a]), hn::Set(d, s.v[a][26]));
  }
  Disp r;
  V* out[3] = {&r.dx, &r.dy, &r.dz};
  for (int a = 0; a < 3; ++a) {
    const V xj = ws::LoadN(d, plane[a] + c, static_cast<size_t>(nl));
    *out[a] = hn::IfThenElseZero(tail, hn::Sub(hn::Sub(xi[a], xj), off[a]));
  }
  r.rsq = hn::Add(hn::Add(hn::Mul(r.dx, r.dx), hn::Mul(r.dy, r.dy)), hn::Mul(r.dz, r.dz));
  return r;
}

// Record pointers of Lanes compacted pairs (tail lanes point at pair 0's knot: valid memory, masked later).
HWY_INLINE void records(const float* tab, int stride, const PeTables32& t, int ti, const int* bt, int c0,
                        int nl, const int* m, const float* q[N]) {
  const size_t knots = static_cast<size_t>(t.nr) + 1;
  const size_t base = static_cast<size_t>(ti - 1) * t.ntypes;
  for (int l = 0; l < N; ++l) {
    const size_t pair = t.ntypes == 1 || l >= nl ? 0 : base + bt[c0 + l] - 1;
    q[l] = tab + (pair * knots + m[l]) * stride;
  }
}

// Types of slots [c, c + Lanes) appended to bt under the keep mask.
HWY_INLINE void compact_types(const PeSlots32& in, int c, int nl, uint64_t keep, int* bt) {
  const DI di;
  const auto tj = hn::PromoteTo(di, ws::LoadN(hn::Rebind<int8_t, D>(), in.type + c, static_cast<size_t>(nl)));
  ws::CompressBitsTo(di, tj, keep, bt);
}

float density(const PeTables32& t, const ShiftOffsets32& s, int ti, const float xi[3], const PeSlots32& in,
              int& in_cut) {
  const D d;
  HWY_ALIGN float brsq[kBlock + 16];
  HWY_ALIGN int bt[kBlock + 16];
  HWY_ALIGN int m[N];
  const V vxi[3] = {hn::Set(d, xi[0]), hn::Set(d, xi[1]), hn::Set(d, xi[2])};
  const V cutsq = hn::Set(d, t.cutsq), one = hn::Set(d, 1.0f);
  V acc = hn::Zero(d);
  in_cut = 0;
  for (int k0 = 0; k0 < in.n; k0 += kBlock) {
    const int k1 = std::min(in.n, k0 + kBlock);
    int cnt = 0;
    for (int c = k0; c < k1; c += N) {
      const int nl = std::min(N, k1 - c);
      const Disp dd = displace(s, vxi, in, c, nl);
      const uint64_t bits =
          ws::MaskBits(d, hn::And(hn::Lt(dd.rsq, cutsq), hn::FirstN(d, static_cast<size_t>(nl))));
      ws::CompressBitsTo(d, dd.rsq, bits, brsq + cnt);
      if (t.ntypes > 1) compact_types(in, c, nl, bits, bt + cnt);
      cnt += static_cast<int>(hwy::PopCount(bits));
    }
    in_cut += cnt;
    for (int c0 = 0; c0 < cnt; c0 += N) {
      const int nl = std::min(N, cnt - c0);
      const auto tail = hn::FirstN(d, static_cast<size_t>(nl));
      const V r = hn::Sqrt(hn::IfThenElse(tail, hn::LoadU(d, brsq + c0), one));
      const V p = locate(r, t, m);
      const float* q[N];
      records(t.dens.data(), 4, t, ti, bt, c0, nl, m, q);
      V a[4];
      ws::Transpose4(d, q, a);
      acc = hn::Add(acc, hn::IfThenElseZero(tail, madd(madd(madd(a[0], p, a[1]), p, a[2]), p, a[3])));
    }
  }
  return hn::GetLane(hn::SumOfLanes(d, acc));
}

// The force pass repeats the density pass's compaction loop with more planes on purpose: one shared routine
// (a Block struct of all planes, tried 2026-11-22) made the emulator 3–5 % slower. kVirial false drops the
// six virial sums (a sixth of the table stage's arithmetic) on steps that do not report pressure. kZbl adds
// the ZBL term to the pairs within its outer cut-off (a group with none costs one compare) and counts them
// into zbl_pairs; without it the pass is plain EAM's.
template <bool kVirial, bool kZbl>
float force(const PeTables32& t, const ShiftOffsets32& s, int ti, float fpi, const float xi[3],
            const PeSlots32& in, float f[3], float vir[6], int& zbl_pairs) {
  const D d;
  HWY_ALIGN float bdx[kBlock + 16], bdy[kBlock + 16], bdz[kBlock + 16], brsq[kBlock + 16], bfp[kBlock + 16];
  HWY_ALIGN int bt[kBlock + 16];
  HWY_ALIGN int m[N];
  const V vxi[3] = {hn::Set(d, xi[0]), hn::Set(d, xi[1]), hn::Set(d, xi[2])};
  const V cutsq = hn::Set(d, t.cutsq), one = hn::Set(d, 1.0f), half = hn::Set(d, 0.5f);
  const V vfpi = hn::Set(d, fpi);
  const V zero = hn::Zero(d);
  V fx = zero, fy = zero, fz = zero, e = zero, v[6] = {zero, zero, zero, zero, zero, zero};
  for (int k0 = 0; k0 < in.n; k0 += kBlock) {
    const int k1 = std::min(in.n, k0 + kBlock);
    int cnt = 0;
    for (int c = k0; c < k1; c += N) {
      const int nl = std::min(N, k1 - c);
      const Disp dd = displace(s, vxi, in, c, nl);
      const uint64_t bits =
          ws::MaskBits(d, hn::And(hn::Lt(dd.rsq, cutsq), hn::FirstN(d, static_cast<size_t>(nl))));
      ws::CompressBitsTo(d, dd.dx, bits, bdx + cnt);
      ws::CompressBitsTo(d, dd.dy, bits, bdy + cnt);
      ws::CompressBitsTo(d, dd.dz, bits, bdz + cnt);
      ws::CompressBitsTo(d, dd.rsq, bits, brsq + cnt);
      ws::CompressBitsTo(d, ws::LoadN(d, in.fp + c, static_cast<size_t>(nl)), bits, bfp + cnt);
      if (t.ntypes > 1) compact_types(in, c, nl, bits, bt + cnt);
      cnt += static_cast<int>(hwy::PopCount(bits));
    }
    for (int c0 = 0; c0 < cnt; c0 += N) {
      const int nl = std::min(N, cnt - c0);
      const auto tail = hn::FirstN(d, static_cast<size_t>(nl));
      const V r = hn::Sqrt(hn::IfThenElse(tail, hn::LoadU(d, brsq + c0), one));
      const V recip = hn::Div(one, r);
      const V p = locate(r, t, m);
      const float* q[N];
      const float* qo[N];
      records(t.force.data(), 16, t, ti, bt, c0, nl, m, q);
      V g0[4], g1[4], g2[4];
      ws::Transpose4(d, q, g0);  // r·φ c0..c3
      for (int l = 0; l < N; ++l) qo[l] = q[l] + 4;
      ws::Transpose4(d, qo, g1);  // r·φ c4..c6, ρ_{i→j} c0
      for (int l = 0; l < N; ++l) qo[l] = q[l] + 8;
      ws::Transpose4(d, qo, g2);  // ρ_{i→j} c1..c2, ρ_{j→i} c0..c1
      const V z2p = madd(madd(g0[0], p, g0[1]), p, g0[2]);
      const V z2 = madd(madd(madd(g0[3], p, g1[0]), p, g1[1]), p, g1[2]);
      const V rhoip = madd(madd(g1[3], p, g2[0]), p, g2[1]);
      V rhojp = rhoip;
      if (t.ntypes > 1) {
        V g3[4];
        for (int l = 0; l < N; ++l) qo[l] = q[l] + 12;
        ws::Transpose4(d, qo, g3);  // ρ_{j→i} c2
        rhojp = madd(madd(g2[2], p, g2[3]), p, g3[0]);
      }
      // Lanes past cnt may hold an earlier PE's stack bytes: loaded as zero.
      const V dx = hn::IfThenElseZero(tail, hn::LoadU(d, bdx + c0));
      const V dy = hn::IfThenElseZero(tail, hn::LoadU(d, bdy + c0));
      const V dz = hn::IfThenElseZero(tail, hn::LoadU(d, bdz + c0));
      const V fpj = hn::IfThenElseZero(tail, hn::LoadU(d, bfp + c0));
      const V phi = hn::Mul(z2, recip);
      const V phip = hn::Sub(hn::Mul(z2p, recip), hn::Mul(phi, recip));
      const V psip = hn::Add(hn::Add(hn::Mul(vfpi, rhojp), hn::Mul(fpj, rhoip)), phip);
      V fpair = hn::IfThenElseZero(tail, hn::Mul(hn::Neg(psip), recip));
      V ehalf = hn::IfThenElseZero(tail, hn::Mul(half, phi));
      if constexpr (kZbl) {
        const potentials::ZblTermT<float>& z = t.scalar.zbl;
        const uint64_t near =
            ws::MaskBits(d, hn::And(hn::Lt(hn::LoadU(d, brsq + c0), hn::Set(d, z.outer_sq)), tail));
        if (near) {
          // Close pairs are few (a cascade's collisions): each lane's ZBL in scalar fp32.
          HWY_ALIGN float zf[N], ze[N];
          for (int l = 0; l < N; ++l) {
            zf[l] = ze[l] = 0.0f;
            if (!((near >> l) & 1)) continue;
            const int tj = t.ntypes > 1 ? bt[c0 + l] : 1;
            ze[l] = 0.5f * potentials::zbl_pair(z.at(ti, tj), z.inner, z.inner_sq, brsq[c0 + l], zf[l]);
          }
          fpair = hn::Add(fpair, hn::Load(d, zf));
          ehalf = hn::Add(ehalf, hn::Load(d, ze));
          zbl_pairs += static_cast<int>(hwy::PopCount(near));
        }
      }
      fx = hn::Add(fx, hn::Mul(dx, fpair));
      fy = hn::Add(fy, hn::Mul(dy, fpair));
      fz = hn::Add(fz, hn::Mul(dz, fpair));
      e = hn::Add(e, ehalf);
      if constexpr (!kVirial) continue;
      v[0] = hn::Add(v[0], hn::Mul(hn::Mul(dx, dx), fpair));
      v[1] = hn::Add(v[1], hn::Mul(hn::Mul(dy, dy), fpair));
      v[2] = hn::Add(v[2], hn::Mul(hn::Mul(dz, dz), fpair));
      v[3] = hn::Add(v[3], hn::Mul(hn::Mul(dx, dy), fpair));
      v[4] = hn::Add(v[4], hn::Mul(hn::Mul(dx, dz), fpair));
      v[5] = hn::Add(v[5], hn::Mul(hn::Mul(dy, dz), fpair));
    }
  }
  f[0] = hn::GetLane(hn::SumOfLanes(d, fx));
  f[1] = hn::GetLane(hn::SumOfLanes(d, fy));
  f[2] = hn::GetLane(hn::SumOfLanes(d, fz));
  if constexpr (kVirial)
    for (int c = 0; c < 6; ++c) vir[c] += 0.5f * hn::GetLane(hn::SumOfLanes(d, v[c]));
  return hn::GetLane(hn::SumOfLanes(d, e));
}

// PE q's slots in a band (see PeBand32); fp only in the force pass.
HWY_INLINE PeSlots32 slots(const PeBand32& b, int q, bool with_fp) {
  const size_t r0 = static_cast<size_t>(b.off[q] - b.k0);
  PeSlots32 in;
  in.n = b.off[q + 1] - b.off[q];
  in.x = b.px + r0, in.y = b.py + r0, in.z = b.pz + r0;
  in.shift = b.shift + b.off[q], in.type = b.type + b.off[q];
  in.fp = with_fp ? b.fp + r0 : nullptr;
  return in;
}

using Policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>;

}  // namespace

float PeDensity32(const PeTables32& t, const ShiftOffsets32& s, int ti, const float* xi, const PeSlots32& in,
                  int& in_cut) {
  return density(t, s, ti, xi, in, in_cut);
}

float PeForce32(const PeTables32& t, const ShiftOffsets32& s, int ti, float fpi, const float* xi,
                const PeSlots32& in, float* f, float* vir) {
  int nz = 0;
  if (t.scalar.zbl.active())
    return vir ? force<true, true>(t, s, ti, fpi, xi, in, f, vir, nz)
               : force<false, true>(t, s, ti, fpi, xi, in, f, vir, nz);
  return vir ? force<true, false>(t, s, ti, fpi, xi, in, f, vir, nz)
             : force<false, false>(t, s, ti, fpi, xi, in, f, vir, nz);
}

int PeDensityPass32(const PeTables32& t, const ShiftOffsets32& s, const PeBand32& band, int q0, int q1,
                    double* rho, double* fp, double* epe, uint32_t* fpay) {
  const PeTables32* pt = &t;
  const ShiftOffsets32* so = &s;
  int cut_max = 0;
  Kokkos::parallel_reduce(
      "mesh_pe_density32", Policy(q0, q1),
      [=](const int q, int& busiest) {
        if (band.local[q] < 0) return;
        float xi[3];
        std::memcpy(xi, band.own + 3 * static_cast<size_t>(band.p0 + q), sizeof xi);
        int in_cut = 0;
        const float r = density(*pt, *so, band.atype[q], xi, slots(band, q, false), in_cut);
        busiest = std::max(busiest, in_cut);
        float f = 0.0f;
        epe[q] = f32_embed(pt->scalar, band.atype[q], r, f);
        rho[q] = r, fp[q] = f;
        std::memcpy(fpay + band.p0 + q, &f, 4);
      },
      Kokkos::Max<int>(cut_max));
  return cut_max;
}

template <bool kZbl>
int force_pass(const PeTables32& t, const ShiftOffsets32& s, const PeBand32& band, int q0, int q1,
               const double* fpv, double* epe, double* vpe, double* fx, double* fy, double* fz) {
  const PeTables32* pt = &t;
  const ShiftOffsets32* so = &s;
  int zbl_max = 0;
  Kokkos::parallel_reduce(
      "mesh_pe_force32", Policy(q0, q1),
      [=](const int q, int& busiest) {
        const int i = band.local[q];
        if (i < 0) return;
        float xi[3];
        std::memcpy(xi, band.own + 3 * static_cast<size_t>(band.p0 + q), sizeof xi);
        float f[3], v[6] = {0, 0, 0, 0, 0, 0};
        const PeSlots32 in = slots(band, q, true);
        const float fpi = static_cast<float>(fpv[q]);
        int nz = 0;
        epe[q] += vpe ? force<true, kZbl>(*pt, *so, band.atype[q], fpi, xi, in, f, v, nz)
                      : force<false, kZbl>(*pt, *so, band.atype[q], fpi, xi, in, f, v, nz);
        busiest = std::max(busiest, nz);
        fx[i] = f[0], fy[i] = f[1], fz[i] = f[2];
        if (vpe)
          for (int c = 0; c < 6; ++c) vpe[6 * static_cast<size_t>(q) + c] = v[c];
      },
      Kokkos::Max<int>(zbl_max));
  return zbl_max;
}

int PeForcePass32(const PeTables32& t, const ShiftOffsets32& s, const PeBand32& band, int q0, int q1,
                  const double* fpv, double* epe, double* vpe, double* fx, double* fy, double* fz) {
  if (t.scalar.zbl.active()) return force_pass<true>(t, s, band, q0, q1, fpv, epe, vpe, fx, fy, fz);
  return force_pass<false>(t, s, band, q0, q1, fpv, epe, vpe, fx, fy, fz);
}

}  // namespace wmd::md::mesh::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wmd::md::mesh {

HWY_EXPORT(PeDensity32);
HWY_EXPORT(PeForce32);
HWY_EXPORT(PeDensityPass32);
HWY_EXPORT(PeForcePass32);

float pe_density32(const PeTables32& t, const ShiftOffsets32& s, int ti, const float xi[3],
                   const PeSlots32& in, int& in_cut) {
  return HWY_DYNAMIC_DISPATCH(PeDensity32)(t, s, ti, xi, in, in_cut);
}

float pe_force32(const PeTables32& t, const ShiftOffsets32& s, int ti, float fpi, const float xi[3],
                 const PeSlots32& in, float f[3], float vir[6]) {
  return HWY_DYNAMIC_DISPATCH(PeForce32)(t, s, ti, fpi, xi, in, f, vir);
}

int pe_density_pass32(const PeTables32& t, const ShiftOffsets32& s, const PeBand32& band, int q0, int q1,
                      double* rho, double* fp, double* epe, std::uint32_t* fpay) {
  return HWY_DYNAMIC_DISPATCH(PeDensityPass32)(t, s, band, q0, q1, rho, fp, epe, fpay);
}

int pe_force_pass32(const PeTables32& t, const ShiftOffsets32& s, const PeBand32& band, int q0, int q1,
                    const double* fpv, double* epe, double* vpe, double* fx, double* fy, double* fz) {
  return HWY_DYNAMIC_DISPATCH(PeForcePass32)(t, s, band, q0, q1, fpv, epe, vpe, fx, fy, fz);
}

}  // namespace wmd::md::mesh
#endif
