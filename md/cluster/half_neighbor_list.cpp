// The binned half-list build. The candidate scan runs over the vector width (Google Highway, one dispatch per
// build): a stencil row of bins is one contiguous run of sorted SoA records, tested Lanes at a time (distance
// and the pair rule) and compacted into the list.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "md/cluster/half_neighbor_list.cpp"
// Highway's per-target inclusion: foreach_target.h first, then highway.h.
// clang-format off
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// clang-format on
#include "md/cluster/half_neighbor_list.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "base/error.hpp"
#include "base/simd_ops-inl.h"

#ifndef WMD_MD_CLUSTER_HALF_LIST_SCAN_
#define WMD_MD_CLUSTER_HALF_LIST_SCAN_
namespace wmd::md {
namespace {

// A stencil row of bins: offsets dy, dz and the reach in x.
struct HalfListRow {
  int dy, dz, dxmax;
};

// What the candidate scan reads: the owned records, the bins (records sorted by bin as SoA, padded by a
// vector's length) and the stencil rows.
struct HalfListScan {
  const PosRec* rec;
  int nlocal;
  int nb[3];
  double lo[3], inv[3], cutsq;
  const int* start;  // bin b's records: [start[b], start[b + 1])
  const double *sx, *sy, *sz;
  const int *skey, *sidx;
  const HalfListRow* rows;
  int nrows;
  int bin_coord(double p, int d) const {
    return std::min(nb[d] - 1, std::max(0, static_cast<int>((p - lo[d]) * inv[d])));
  }
};

}  // namespace
}  // namespace wmd::md
#endif

HWY_BEFORE_NAMESPACE();
namespace wmd::md::HWY_NAMESPACE {
namespace {
namespace hn = hwy::HWY_NAMESPACE;
namespace ws = wmd::simd::HWY_NAMESPACE;
}  // namespace

// Every owned atom's candidates, Lanes at a time: kept when closer than the cut-off and when the pair rule
// (pair_key, below) gives the pair to this atom; in candidate order, on every target.
void ScanHalfList(const HalfListScan& s, std::vector<int>& nbr, int64_t* offset) {
  using D = hn::ScalableTag<double>;
  const D d;
  const hn::Rebind<int32_t, D> di;
  constexpr int N = static_cast<int>(ws::kLanes<double>);
  size_t cap = std::max<size_t>(nbr.capacity(), static_cast<size_t>(s.nlocal) * 40 + 1024);
  nbr.resize(cap);
  size_t n = 0;
  const auto vcut = hn::Set(d, s.cutsq);
  const auto one = hn::Set(di, 1);
  for (int i = 0; i < s.nlocal; ++i) {
    const PosRec& ri = s.rec[i];
    const int cx = s.bin_coord(ri.x, 0), cy = s.bin_coord(ri.y, 1), cz = s.bin_coord(ri.z, 2);
    const auto xi = hn::Set(d, ri.x), yi = hn::Set(d, ri.y), zi = hn::Set(d, ri.z);
    const auto key = hn::Set(di, 2 * ri.owner), owner = hn::Set(di, ri.owner);
    for (int r = 0; r < s.nrows; ++r) {
      const HalfListRow& row = s.rows[r];
      const int by = cy + row.dy, bz = cz + row.dz;
      if (by < 0 || by >= s.nb[1] || bz < 0 || bz >= s.nb[2]) continue;
      const int bx0 = std::max(0, cx - row.dxmax), bx1 = std::min(s.nb[0] - 1, cx + row.dxmax);
      const int64_t rowbase = (static_cast<int64_t>(bz) * s.nb[1] + by) * s.nb[0];
      const int k0 = s.start[rowbase + bx0], k1 = s.start[rowbase + bx1 + 1];
      if (n + (k1 - k0) + 16 > cap) {
        cap = 2 * cap + (k1 - k0);
        nbr.resize(cap);
      }
      int* dst = nbr.data();
      for (int k = k0; k < k1; k += N) {
        const auto dx = hn::Sub(xi, hn::LoadU(d, s.sx + k));
        const auto dy = hn::Sub(yi, hn::LoadU(d, s.sy + k));
        const auto dz = hn::Sub(zi, hn::LoadU(d, s.sz + k));
        const auto rsq = hn::Add(hn::Add(hn::Mul(dx, dx), hn::Mul(dy, dy)), hn::Mul(dz, dz));
        const uint64_t near = ws::MaskBits(
            d, hn::And(hn::Lt(rsq, vcut), hn::FirstN(d, static_cast<size_t>(std::min(N, k1 - k)))));
        // The pair rule: above = key_j > 2·owner_i, flipped when the owners differ and their sum is odd.
        const auto kj = hn::LoadU(di, s.skey + k);
        const auto oj = hn::ShiftRight<1>(kj);
        const uint64_t above = ws::MaskBits(di, hn::Gt(kj, key));
        const uint64_t flip =
            ws::MaskBits(di, hn::AndNot(hn::Eq(oj, owner), hn::TestBit(hn::Add(oj, owner), one)));
        const uint64_t keep = near & (above ^ flip);
        n += ws::CompressBitsTo(di, hn::LoadU(di, s.sidx + k), keep, dst + n);
      }
    }
    offset[i + 1] = static_cast<int64_t>(n);
  }
  nbr.resize(n);
}

}  // namespace wmd::md::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wmd::md {
namespace {

// Record j (owned, or an image of atom o with offset s) pairs with owned i once; the mirror pair — on this
// rank or on the rank owning o — is then skipped. Distinct atoms: the larger owner keeps the pair when
// owner(i) + owner(j) is odd, the smaller when it is even (a checkerboard, so that the pairs across a
// sub-domain face split evenly between the two ranks; "the smaller id keeps it" gave one rank all of them).
// The atom meeting its own image: the pair is kept when s is lexicographically positive. Keys are the
// records' `owner`: the owned index for build_ghost_images, the global id in the MPI cluster decomposition,
// so the rule is the same on every rank. Encoded as one integer per record, key = 2·owner + (1 if a positive
// self-image shift); owned i (key 2·owner_i) keeps the pair with record key k_j when k_j > 2·owner_i
// (distinct owners: owner_j > owner_i; the same owner: a positive shift), the other way round when the owners
// differ and their sum is odd (ScanHalfList).
inline int pair_key(const GhostImages& g, int j) {
  if (j < g.nlocal) return 2 * g.rec[j].owner;
  const int* s = g.shift_of(j);
  const bool positive = s[2] > 0 || (s[2] == 0 && (s[1] > 0 || (s[1] == 0 && s[0] > 0)));
  return 2 * g.rec[j].owner + (positive ? 1 : 0);
}

}  // namespace

HWY_EXPORT(ScanHalfList);

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
  // A few atoms spread far apart (a sparse or exploded system) would ask for up to 4096³ bins: keep the bins
  // to a few per record, widening them all alike (any width of at least half the cutoff gives the same
  // pairs).
  const double max_bins = std::max(1 << 24, 8 * nall);
  while (static_cast<double>(nb[0]) * nb[1] * nb[2] > max_bins) {
    for (int d = 0; d < 3; ++d) {
      const double extent = hi[d] - lo[d];
      nb[d] = std::max(1, nb[d] / 2);
      inv[d] = extent > 0.0 ? nb[d] / extent : 0.0;
      width[d] = extent > 0.0 ? extent / nb[d] : cut;
    }
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
  std::vector<HalfListRow> rows;
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
  const HalfListScan scan{g.rec.data(),
                          nlocal,
                          {nb[0], nb[1], nb[2]},
                          {lo[0], lo[1], lo[2]},
                          {inv[0], inv[1], inv[2]},
                          cutsq,
                          start.data(),
                          sx.data(),
                          sy.data(),
                          sz.data(),
                          skey.data(),
                          sidx.data(),
                          rows.data(),
                          static_cast<int>(rows.size())};
  HWY_DYNAMIC_DISPATCH(ScanHalfList)(scan, out.nbr, out.offset.data());
}

}  // namespace wmd::md
#endif
