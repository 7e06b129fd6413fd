// SIMD building blocks shared by the hot kernels, written once over the vector width with Google Highway and
// compiled for every target (base/simd.hpp): records loaded whole by index and transposed in registers (no
// hardware gathers: on the CPUs measured a gather costs about as much per lane as a scalar load, a row load
// plus shuffles a third of it), lane sums, and the approximate 1/√x of the reduced-precision pair kernels.
// Included once per target from files that include hwy/foreach_target.h; the guard toggles per target, as
// Highway's own -inl.h headers do.
#if defined(WMD_BASE_SIMD_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef WMD_BASE_SIMD_OPS_INL_H_
#undef WMD_BASE_SIMD_OPS_INL_H_
#else
#define WMD_BASE_SIMD_OPS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace wmd::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Lanes of a full vector of T on this target (a compile-time constant on x86 and NEON).
template <class T>
inline constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<T>());

/// out[c] lane l = row[l][c] for c < 4 and l < Lanes(d): one 4-double record per lane, loaded as whole rows
/// and transposed in registers.
template <class D>
HWY_INLINE void Transpose4(D d, const double* const* row, hn::Vec<D> out[4]) {
#if HWY_TARGET == HWY_SCALAR
  for (int c = 0; c < 4; ++c) out[c] = hn::LoadU(d, row[0] + c);
#else
  constexpr size_t N = hn::MaxLanes(D());
  if constexpr (N == 8) {
    // Rows l and l + 4 share a register; unpacking pairs them per 128-bit block, and the blocks are then
    // sorted by swapping neighbours and blending (no lane-crossing permutes).
    const hn::Half<D> dh;
    auto pair = [&](int lo) { return hn::Combine(d, hn::LoadU(dh, row[lo + 4]), hn::LoadU(dh, row[lo])); };
    const auto a = pair(0), b = pair(1), c = pair(2), e = pair(3);
    const auto ablo = hn::InterleaveLower(d, a, b),
               abhi = hn::InterleaveUpper(d, a, b);  // x0 x1 | z0 z1 | x4..
    const auto celo = hn::InterleaveLower(d, c, e),
               cehi = hn::InterleaveUpper(d, c, e);  // x2 x3 | z2 z3 | x6..
    out[0] = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(celo), ablo);
    out[1] = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(cehi), abhi);
    out[2] = hn::OddEvenBlocks(celo, hn::SwapAdjacentBlocks(ablo));
    out[3] = hn::OddEvenBlocks(cehi, hn::SwapAdjacentBlocks(abhi));
  } else if constexpr (N == 4) {
    const auto r0 = hn::LoadU(d, row[0]), r1 = hn::LoadU(d, row[1]);
    const auto r2 = hn::LoadU(d, row[2]), r3 = hn::LoadU(d, row[3]);
    const auto lo01 = hn::InterleaveLower(d, r0, r1), hi01 = hn::InterleaveUpper(d, r0, r1);  // x0 x1 | z0 z1
    const auto lo23 = hn::InterleaveLower(d, r2, r3), hi23 = hn::InterleaveUpper(d, r2, r3);
    out[0] = hn::ConcatLowerLower(d, lo23, lo01);
    out[1] = hn::ConcatLowerLower(d, hi23, hi01);
    out[2] = hn::ConcatUpperUpper(d, lo23, lo01);
    out[3] = hn::ConcatUpperUpper(d, hi23, hi01);
  } else if constexpr (N == 2) {
    const auto a0 = hn::LoadU(d, row[0]), a1 = hn::LoadU(d, row[1]);
    const auto b0 = hn::LoadU(d, row[0] + 2), b1 = hn::LoadU(d, row[1] + 2);
    out[0] = hn::InterleaveLower(d, a0, a1), out[1] = hn::InterleaveUpper(d, a0, a1);
    out[2] = hn::InterleaveLower(d, b0, b1), out[3] = hn::InterleaveUpper(d, b0, b1);
  } else {
    HWY_ALIGN double buf[4][N];
    for (size_t l = 0; l < N; ++l)
      for (int c = 0; c < 4; ++c) buf[c][l] = row[l][c];
    for (int c = 0; c < 4; ++c) out[c] = hn::Load(d, buf[c]);
  }
#endif
}

/// The same for 4-float records (16 bytes each).
template <class D>
HWY_INLINE void Transpose4(D d, const float* const* row, hn::Vec<D> out[4]) {
#if HWY_TARGET == HWY_SCALAR
  for (int c = 0; c < 4; ++c) out[c] = hn::LoadU(d, row[0] + c);
#else
  constexpr size_t N = hn::MaxLanes(D());
  if constexpr (N >= 4 && N <= 16 && (N & (N - 1)) == 0) {
    // Register g holds record 4·k + g in its 128-bit block k; two rounds of unpacking then give lane l =
    // record l in every output.
    const hn::Full128<float> dq;
    hn::Vec<D> g[4];
    for (int r = 0; r < 4; ++r) {
      if constexpr (N == 4) {
        g[r] = hn::LoadU(d, row[r]);
      } else if constexpr (N == 8) {
        g[r] = hn::Combine(d, hn::LoadU(dq, row[4 + r]), hn::LoadU(dq, row[r]));
      } else {
        const hn::Half<D> dh;
        g[r] = hn::Combine(d, hn::Combine(dh, hn::LoadU(dq, row[12 + r]), hn::LoadU(dq, row[8 + r])),
                           hn::Combine(dh, hn::LoadU(dq, row[4 + r]), hn::LoadU(dq, row[r])));
      }
    }
    const hn::Repartition<double, D> dd;
    const auto t0 = hn::BitCast(dd, hn::InterleaveLower(d, g[0], g[1]));  // x0 x1 y0 y1 per block
    const auto t1 = hn::BitCast(dd, hn::InterleaveUpper(d, g[0], g[1]));  // z0 z1 w0 w1
    const auto t2 = hn::BitCast(dd, hn::InterleaveLower(d, g[2], g[3]));
    const auto t3 = hn::BitCast(dd, hn::InterleaveUpper(d, g[2], g[3]));
    out[0] = hn::BitCast(d, hn::InterleaveLower(dd, t0, t2));
    out[1] = hn::BitCast(d, hn::InterleaveUpper(dd, t0, t2));
    out[2] = hn::BitCast(d, hn::InterleaveLower(dd, t1, t3));
    out[3] = hn::BitCast(d, hn::InterleaveUpper(dd, t1, t3));
  } else {
    HWY_ALIGN float buf[4][N];
    for (size_t l = 0; l < N; ++l)
      for (int c = 0; c < 4; ++c) buf[c][l] = row[l][c];
    for (int c = 0; c < 4; ++c) out[c] = hn::Load(d, buf[c]);
  }
#endif
}

#if HWY_TARGET != HWY_SCALAR
// Sum4's last step on four-lane vectors ab = (a_e, b_e | a_o, b_o) and ce: (Σa, Σb, Σc, Σe).
template <class D4>
HWY_INLINE void Sum4Finish(D4 d4, hn::Vec<D4> ab, hn::Vec<D4> ce, double s[4]) {
  hn::StoreU(hn::Add(hn::ConcatLowerLower(d4, ce, ab), hn::ConcatUpperUpper(d4, ce, ab)), d4, s);
}
#endif

/// The lane sums of four vectors into s[0..3]: one tree of interleaves and adds where four separate
/// reductions take three times the shuffles.
template <class D>
HWY_INLINE void Sum4(D d, hn::Vec<D> a, hn::Vec<D> b, hn::Vec<D> c, hn::Vec<D> e, double s[4]) {
#if HWY_TARGET != HWY_SCALAR
  constexpr size_t N = hn::MaxLanes(D());
  if constexpr (N == 8 || N == 4) {
    const auto ab =
        hn::Add(hn::InterleaveLower(d, a, b), hn::InterleaveUpper(d, a, b));  // a01 b01 | a23 b23 …
    const auto ce = hn::Add(hn::InterleaveLower(d, c, e), hn::InterleaveUpper(d, c, e));
    if constexpr (N == 8) {
      const hn::Half<D> dh;
      Sum4Finish(dh, hn::Add(hn::LowerHalf(dh, ab), hn::UpperHalf(dh, ab)),
                 hn::Add(hn::LowerHalf(dh, ce), hn::UpperHalf(dh, ce)), s);
    } else {
      Sum4Finish(d, ab, ce, s);
    }
    return;
  }
#endif
  s[0] = hn::GetLane(hn::SumOfLanes(d, a)), s[1] = hn::GetLane(hn::SumOfLanes(d, b));
  s[2] = hn::GetLane(hn::SumOfLanes(d, c)), s[3] = hn::GetLane(hn::SumOfLanes(d, e));
}

/// 1/√x to about fp32 accuracy (relative error below 2⁻²³) for the reduced-precision pair kernels: AVX-512's
/// 14-bit estimate with one Newton step, elsewhere the fp32 12-bit estimate with two.
template <class D>
HWY_INLINE hn::Vec<D> ApproxRsqrt(D d, hn::Vec<D> x) {
  const auto half_x = hn::Mul(hn::Set(d, 0.5), x), three_halves = hn::Set(d, 1.5);
  auto newton = [&](hn::Vec<D> y) {
    return hn::Mul(y, hn::Sub(three_halves, hn::Mul(half_x, hn::Mul(y, y))));
  };
#if HWY_TARGET <= HWY_AVX3
  if constexpr (hn::MaxLanes(D()) == 8) return newton(hn::Vec<D>{_mm512_rsqrt14_pd(x.raw)});
#endif
  const hn::Rebind<float, D> df;
  return newton(newton(hn::PromoteTo(d, hn::ApproximateReciprocalSqrt(hn::DemoteTo(df, x)))));
}

/// Mask bits of m (lane l → bit l) for up to 64 lanes.
template <class D>
HWY_INLINE uint64_t MaskBits(D d, hn::Mask<D> m) {
#if HWY_TARGET <= HWY_AVX3
  (void)d;
  constexpr size_t N = hn::MaxLanes(D());
  return static_cast<uint64_t>(m.raw) & (N >= 64 ? ~0ull : (1ull << N) - 1);
#else
  uint8_t bytes[8] = {};
  hn::StoreMaskBits(d, m, bytes);
  uint64_t bits = 0;
  for (size_t k = 0; k < (hn::MaxLanes(D()) + 7) / 8; ++k) bits |= static_cast<uint64_t>(bytes[k]) << (8 * k);
  return bits;
#endif
}

/// The mask with lane l set where bit l of bits is.
template <class D>
HWY_INLINE hn::Mask<D> MaskFromBits(D d, uint64_t bits) {
#if HWY_TARGET <= HWY_AVX3
  (void)d;
  return hn::Mask<D>{static_cast<typename hn::Mask<D>::Raw>(bits)};
#else
  uint8_t bytes[8];
  for (int k = 0; k < 8; ++k) bytes[k] = static_cast<uint8_t>(bits >> (8 * k));
  return hn::LoadMaskBits(d, bytes);
#endif
}

/// The first n lanes from p (the others zero) without reading past p[n − 1].
template <class D>
HWY_INLINE hn::Vec<D> LoadN(D d, const hn::TFromD<D>* p, size_t n) {
  constexpr size_t N = hn::MaxLanes(D());
  if (n >= N) return hn::LoadU(d, p);
    // AVX-512's masked loads (and AVX2's for 4- and 8-byte lanes) do not touch the masked-off lanes.
#if HWY_TARGET <= HWY_AVX3
  return hn::MaskedLoad(hn::FirstN(d, n), d, p);
#else
#if HWY_TARGET == HWY_AVX2
  if constexpr (sizeof(hn::TFromD<D>) >= 4) return hn::MaskedLoad(hn::FirstN(d, n), d, p);
#endif
  HWY_ALIGN hn::TFromD<D> buf[N] = {};
  for (size_t l = 0; l < n; ++l) buf[l] = p[l];
  return hn::Load(d, buf);
#endif
}

namespace detail {

// Compaction tables (static, so that no call copies them: Highway 1.0.3's own Compress keeps its tables in
// non-static local arrays, which GCC 12 copies onto the stack at every call, 2 KiB for eight doubles).
// Eight 32-bit lanes: for each mask, the selected lanes' indices then the others', a nibble each.
struct Compress8 {
  uint32_t v[256];
};
constexpr Compress8 MakeCompress8() {
  Compress8 t{};
  for (unsigned m = 0; m < 256; ++m) {
    int k = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (unsigned l = 0; l < 8; ++l)
        if (((m >> l) & 1u) == (pass == 0 ? 1u : 0u)) t.v[m] |= l << (4 * k++);
  }
  return t;
}
// Four lanes: 32-bit lane indices, as pairs for 64-bit lanes (8 entries) or single (4 entries).
template <int kPerLane>
struct Compress4 {
  uint32_t v[16][4 * kPerLane];
};
template <int kPerLane>
constexpr Compress4<kPerLane> MakeCompress4() {
  Compress4<kPerLane> t{};
  for (unsigned m = 0; m < 16; ++m) {
    int k = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (unsigned l = 0; l < 4; ++l)
        if (((m >> l) & 1u) == (pass == 0 ? 1u : 0u))
          for (int h = 0; h < kPerLane; ++h) t.v[m][k++] = kPerLane * l + static_cast<unsigned>(h);
  }
  return t;
}
HWY_ALIGN constexpr Compress8 kCompress8 = MakeCompress8();
HWY_ALIGN constexpr Compress4<2> kCompress4x64 = MakeCompress4<2>();
HWY_ALIGN constexpr Compress4<1> kCompress4x32 = MakeCompress4<1>();

}  // namespace detail

/// Stores the lanes of v whose bit is set in `bits` (lane l → bit l), in order, at p, which has room for a
/// whole vector past them; returns how many. AVX-512: a register compress and a plain store (the memory form
/// of compress is microcoded and many times slower on AMD's Zen 4). AVX2: one permute by a table row.
/// Elsewhere lane by lane.
template <class D>
HWY_INLINE size_t CompressBitsTo(D d, hn::Vec<D> v, uint64_t bits, hn::TFromD<D>* p) {
  using T = hn::TFromD<D>;
  constexpr size_t N = hn::MaxLanes(D());
  const size_t count = hwy::PopCount(bits);
#if HWY_TARGET <= HWY_AVX3
  if constexpr (sizeof(T) == 8 && N == 8) {
    const hn::Repartition<double, D> dd;
    const __mmask8 m = static_cast<__mmask8>(bits);
    hn::StoreU(hn::BitCast(d, hn::Vec<decltype(dd)>{_mm512_maskz_compress_pd(m, hn::BitCast(dd, v).raw)}), d,
               p);
  } else if constexpr (sizeof(T) == 8 && N == 4) {
    const hn::Repartition<double, D> dd;
    const __mmask8 m = static_cast<__mmask8>(bits);
    hn::StoreU(hn::BitCast(d, hn::Vec<decltype(dd)>{_mm256_maskz_compress_pd(m, hn::BitCast(dd, v).raw)}), d,
               p);
  } else {
    hn::StoreU(hn::Compress(v, MaskFromBits(d, bits)), d, p);  // 4-byte lanes: vcompressps/vpcompressd
  }
  return count;
#elif HWY_TARGET == HWY_AVX2
  if constexpr (N * sizeof(T) == 32) {
    const hn::Repartition<float, D> df;
    __m256i idx;
    if constexpr (sizeof(T) == 4) {
      idx = _mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(detail::kCompress8.v[bits])),
                              _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
    } else {
      idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(detail::kCompress4x64.v[bits]));
    }
    const __m256 r = _mm256_permutevar8x32_ps(hn::BitCast(df, v).raw, idx);
    hn::StoreU(hn::BitCast(d, hn::Vec<decltype(df)>{r}), d, p);
    return count;
  } else if constexpr (N * sizeof(T) == 16 && sizeof(T) == 4) {
    const hn::Repartition<float, D> df;
    const __m128i idx = _mm_load_si128(reinterpret_cast<const __m128i*>(detail::kCompress4x32.v[bits]));
    hn::StoreU(hn::BitCast(d, hn::Vec<decltype(df)>{_mm_permutevar_ps(hn::BitCast(df, v).raw, idx)}), d, p);
    return count;
  }
#endif
#if HWY_TARGET > HWY_AVX3
  HWY_ALIGN T lanes[N];
  hn::Store(v, d, lanes);
  size_t k = 0;
  for (size_t l = 0; l < N; ++l) {
    p[k] = lanes[l];
    k += (bits >> l) & 1;
  }
  return count;
#endif
}

}  // namespace wmd::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // WMD_BASE_SIMD_OPS_INL_H_
