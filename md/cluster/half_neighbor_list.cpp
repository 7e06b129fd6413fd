#include "md/cluster/half_neighbor_list.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "base/error.hpp"

#if defined(__AVX512F__) && defined(__AVX512VL__)
#define WMD_AVX512 1
#include <immintrin.h>
#endif

namespace wmd::md {
namespace {

// Record j (owned, or an image of atom o with offset s) pairs with owned i once; the mirror pair — on this
// rank or on the rank owning o — is then skipped. Distinct atoms: the larger owner keeps the pair when
// owner(i) + owner(j) is odd, the smaller when it is even (a checkerboard, so that the pairs across a
// sub-domain face split evenly between the two ranks; "the smaller id keeps it" gave one rank all of them).
// The atom meeting its own image: the pair is kept when s is lexicographically positive. Keys are the
// records' `owner`: the owned index for build_ghost_images, the global id in the MPI cluster decomposition,
// so the rule is the same on every rank. Encoded as one integer per record, key = 2·owner + (1 if a positive
// self-image shift); see keeps_pair.
inline int pair_key(const GhostImages& g, int j) {
  if (j < g.nlocal) return 2 * g.rec[j].owner;
  const int* s = g.shift_of(j);
  const bool positive = s[2] > 0 || (s[2] == 0 && (s[1] > 0 || (s[1] == 0 && s[0] > 0)));
  return 2 * g.rec[j].owner + (positive ? 1 : 0);
}

// Whether owned i (key 2·owner_i) keeps the pair with record key kj.
inline bool keeps_pair(int owner_i, int kj) {
  const int oj = kj >> 1;
  const bool above = kj > 2 * owner_i;  // distinct owners: owner_j > owner_i; same owner: a positive shift
  return oj != owner_i && ((oj + owner_i) & 1) ? !above : above;
}

}  // namespace

void build_half_list(const GhostImages& g, double cut, HalfNeighborList& out) {
  const int nall = g.nall();
  const int nlocal = g.nlocal;
  out.offset.assign(nlocal + 1, 0);
  if (nall == 0) {
    out.nbr.clear();
    return;
  }
  double lo[3] = {g.rec[0].x, g.rec[0].y, g.rec[0].z}, hi[3] = {lo[0], lo[1], lo[2]};
  for (const PosRec& r : g.rec) {
    // 2·owner + 1 must fit the 32-bit key.
    if (r.owner < 0 || r.owner > (INT_MAX - 1) / 2)
      throw RunError("atom key " + std::to_string(r.owner) + " is out of the half list's range (0 to 2^30)");
    lo[0] = std::min(lo[0], r.x), hi[0] = std::max(hi[0], r.x);
    lo[1] = std::min(lo[1], r.y), hi[1] = std::max(hi[1], r.y);
    lo[2] = std::min(lo[2], r.z), hi[2] = std::max(hi[2], r.z);
  }
  // Bins at least half the cutoff wide (LAMMPS's default): the stencil of bins within the cutoff then holds
  // about 2.3× fewer candidates than 27 bins a full cutoff wide.
  int nb[3];
  double inv[3], width[3];
  for (int d = 0; d < 3; ++d) {
    const double extent = hi[d] - lo[d];
    nb[d] = std::max(1, std::min(4096, static_cast<int>(extent / (0.5 * cut))));
    inv[d] = extent > 0.0 ? nb[d] / extent : 0.0;
    width[d] = extent > 0.0 ? extent / nb[d] : cut;
  }
  auto bin_coord = [&](double p, int d) {
    return std::min(nb[d] - 1, std::max(0, static_cast<int>((p - lo[d]) * inv[d])));
  };
  const int64_t nbins = static_cast<int64_t>(nb[0]) * nb[1] * nb[2];
  std::vector<int> start(nbins + 1, 0), binid(nall);
  for (int j = 0; j < nall; ++j) {
    const PosRec& r = g.rec[j];
    binid[j] = (bin_coord(r.z, 2) * nb[1] + bin_coord(r.y, 1)) * nb[0] + bin_coord(r.x, 0);
    ++start[binid[j] + 1];
  }
  for (int64_t b = 0; b < nbins; ++b) start[b + 1] += start[b];
  // Records in bin order, structure of arrays, so a stencil row of bins is one contiguous run.
  std::vector<double> sx(nall + 8), sy(nall + 8), sz(nall + 8);
  std::vector<int> skey(nall + 8), sidx(nall + 8);
  {
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (int j = 0; j < nall; ++j) {
      const int k = fill[binid[j]]++;
      sx[k] = g.rec[j].x, sy[k] = g.rec[j].y, sz[k] = g.rec[j].z;
      skey[k] = pair_key(g, j);
      sidx[k] = j;
    }
  }
  // Stencil rows (dy, dz) with the x-offset reach of each: bins whose nearest points are closer than cut.
  const double cutsq = cut * cut;
  int reach[3];
  for (int d = 0; d < 3; ++d) reach[d] = static_cast<int>(std::ceil(cut / width[d]));
  struct Row {
    int dy, dz, dxmax;
  };
  std::vector<Row> rows;
  for (int dz = -reach[2]; dz <= reach[2]; ++dz) {
    for (int dy = -reach[1]; dy <= reach[1]; ++dy) {
      const double gy = std::max(0, std::abs(dy) - 1) * width[1],
                   gz = std::max(0, std::abs(dz) - 1) * width[2];
      const double rest = cutsq - gy * gy - gz * gz;
      if (rest <= 0.0) continue;
      int dxmax = 0;
      while (dxmax < reach[0] && dxmax * width[0] < std::sqrt(rest)) ++dxmax;
      rows.push_back({dy, dz, dxmax});
    }
  }
  std::vector<int>& nbr = out.nbr;
  size_t cap = std::max<size_t>(nbr.capacity(), static_cast<size_t>(nlocal) * 40 + 1024);
  nbr.resize(cap);
  size_t n = 0;
  for (int i = 0; i < nlocal; ++i) {
    const PosRec& ri = g.rec[i];
    const int cx = bin_coord(ri.x, 0), cy = bin_coord(ri.y, 1), cz = bin_coord(ri.z, 2);
    for (const Row& row : rows) {
      const int by = cy + row.dy, bz = cz + row.dz;
      if (by < 0 || by >= nb[1] || bz < 0 || bz >= nb[2]) continue;
      const int bx0 = std::max(0, cx - row.dxmax), bx1 = std::min(nb[0] - 1, cx + row.dxmax);
      const int64_t rowbase = (static_cast<int64_t>(bz) * nb[1] + by) * nb[0];
      const int k0 = start[rowbase + bx0], k1 = start[rowbase + bx1 + 1];
      if (n + (k1 - k0) + 16 > cap) {
        cap = 2 * cap + (k1 - k0);
        nbr.resize(cap);
      }
      int* dst = nbr.data();
#ifdef WMD_AVX512
      const __m512d xi = _mm512_set1_pd(ri.x), yi = _mm512_set1_pd(ri.y), zi = _mm512_set1_pd(ri.z);
      const __m512d vcut = _mm512_set1_pd(cutsq);
      const __m256i key = _mm256_set1_epi32(2 * ri.owner), owner = _mm256_set1_epi32(ri.owner);
      const __m256i one = _mm256_set1_epi32(1);
      for (int k = k0; k < k1; k += 8) {
        const __mmask8 tail = static_cast<__mmask8>(k1 - k >= 8 ? 0xFF : (1u << (k1 - k)) - 1u);
        const __m512d dx = _mm512_sub_pd(xi, _mm512_loadu_pd(&sx[k]));
        const __m512d dy = _mm512_sub_pd(yi, _mm512_loadu_pd(&sy[k]));
        const __m512d dz = _mm512_sub_pd(zi, _mm512_loadu_pd(&sz[k]));
        const __m512d rsq =
            _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
        const __mmask8 near = _mm512_mask_cmp_pd_mask(tail, rsq, vcut, _CMP_LT_OQ);
        const __m256i kj = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&skey[k]));
        const __m256i oj = _mm256_srai_epi32(kj, 1);
        const __mmask8 above = _mm256_cmpgt_epi32_mask(kj, key);
        const __mmask8 flip = static_cast<__mmask8>(_mm256_test_epi32_mask(_mm256_add_epi32(oj, owner), one) &
                                                    ~_mm256_cmpeq_epi32_mask(oj, owner));
        const __mmask8 keep = static_cast<__mmask8>(near & (above ^ flip));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + n),
                            _mm256_maskz_compress_epi32(
                                keep, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&sidx[k]))));
        n += _mm_popcnt_u32(keep);
      }
#else
      for (int k = k0; k < k1; ++k) {
        if (!keeps_pair(ri.owner, skey[k])) continue;
        const double dx = ri.x - sx[k], dy = ri.y - sy[k], dz = ri.z - sz[k];
        if (dx * dx + dy * dy + dz * dz < cutsq) dst[n++] = sidx[k];
      }
#endif
    }
    out.offset[i + 1] = static_cast<int64_t>(n);
  }
  nbr.resize(n);
}

}  // namespace wmd::md
