#include "md/half_neighbor_list.hpp"

#include <algorithm>
#include <cmath>

namespace wmd::md {
namespace {

// Ghost j (an image of atom o with offset s) pairs with owned i once: when key(o) > key(i), or when o is i
// (the atom meets its own image) and s is lexicographically positive; the mirror pair — on this rank or on
// the rank owning o — is then skipped. Keys are the records' `owner` (global ids across MPI ranks).
inline bool take_pair(const GhostImages& g, int i, int j) {
  if (j < g.nlocal) return j > i;
  const int o = g.rec[j].owner;
  const int oi = g.rec[i].owner;
  if (o != oi) return o > oi;
  const int* s = g.shift_of(j);
  return s[2] > 0 || (s[2] == 0 && (s[1] > 0 || (s[1] == 0 && s[0] > 0)));
}

}  // namespace

void build_half_list(const GhostImages& g, double cut, HalfNeighborList& out) {
  const int nall = g.nall();
  const int nlocal = g.nlocal;
  out.offset.assign(nlocal + 1, 0);
  out.nbr.clear();
  if (nall == 0) return;
  double lo[3] = {g.rec[0].x, g.rec[0].y, g.rec[0].z}, hi[3] = {lo[0], lo[1], lo[2]};
  for (const PosRec& r : g.rec) {
    lo[0] = std::min(lo[0], r.x), hi[0] = std::max(hi[0], r.x);
    lo[1] = std::min(lo[1], r.y), hi[1] = std::max(hi[1], r.y);
    lo[2] = std::min(lo[2], r.z), hi[2] = std::max(hi[2], r.z);
  }
  int nb[3];
  double inv[3];
  for (int d = 0; d < 3; ++d) {
    const double extent = hi[d] - lo[d];
    nb[d] = std::max(1, std::min(1024, static_cast<int>(extent / cut)));
    inv[d] = extent > 0.0 ? nb[d] / extent : 0.0;
  }
  auto bin_of = [&](const PosRec& r, int c[3]) {
    const double p[3] = {r.x, r.y, r.z};
    for (int d = 0; d < 3; ++d)
      c[d] = std::min(nb[d] - 1, std::max(0, static_cast<int>((p[d] - lo[d]) * inv[d])));
  };
  const int nbins = nb[0] * nb[1] * nb[2];
  std::vector<int> start(nbins + 1, 0), order(nall), binid(nall);
  for (int j = 0; j < nall; ++j) {
    int c[3];
    bin_of(g.rec[j], c);
    binid[j] = (c[2] * nb[1] + c[1]) * nb[0] + c[0];
    ++start[binid[j] + 1];
  }
  for (int b = 0; b < nbins; ++b) start[b + 1] += start[b];
  {
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (int j = 0; j < nall; ++j) order[fill[binid[j]]++] = j;
  }
  const double cutsq = cut * cut;
  out.nbr.reserve(static_cast<size_t>(nlocal) * 48);
  for (int i = 0; i < nlocal; ++i) {
    const PosRec& ri = g.rec[i];
    int c[3];
    bin_of(ri, c);
    for (int bz = std::max(0, c[2] - 1); bz <= std::min(nb[2] - 1, c[2] + 1); ++bz) {
      for (int by = std::max(0, c[1] - 1); by <= std::min(nb[1] - 1, c[1] + 1); ++by) {
        for (int bx = std::max(0, c[0] - 1); bx <= std::min(nb[0] - 1, c[0] + 1); ++bx) {
          const int b = (bz * nb[1] + by) * nb[0] + bx;
          for (int k = start[b]; k < start[b + 1]; ++k) {
            const int j = order[k];
            if (j == i || !take_pair(g, i, j)) continue;
            const PosRec& rj = g.rec[j];
            const double dx = ri.x - rj.x, dy = ri.y - rj.y, dz = ri.z - rj.z;
            if (dx * dx + dy * dy + dz * dz < cutsq) out.nbr.push_back(j);
          }
        }
      }
    }
    out.offset[i + 1] = static_cast<int64_t>(out.nbr.size());
  }
}

}  // namespace wmd::md
