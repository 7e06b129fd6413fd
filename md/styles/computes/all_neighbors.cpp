#include "md/styles/computes/all_neighbors.hpp"

#include <algorithm>
#include <cmath>

namespace wmd::md {

AllNeighbors::AllNeighbors(const State& s, const Comm& comm, double cutoff) : cutsq_(cutoff * cutoff) {
  const Atoms& a = s.atoms;
  struct Raw {
    double x, y, z;
    int64_t id;
    int type;
    uint32_t mask;
  };
  std::vector<Raw> mine(a.size());
  for (size_t i = 0; i < a.size(); ++i) mine[i] = {a.x[i], a.y[i], a.z[i], a.id[i], a.type[i], a.mask[i]};
  const std::vector<Raw> all = comm.allgather(mine);
  // Atoms may stand up to half a skin outside the box between re-neighbourings: keep copies within a margin
  // of two cutoffs (every site within the cutoff of an atom), and bin the region they cover.
  const double margin = 2.0 * cutoff;
  double lo[3], hi[3];
  int reach[3];
  // A triclinic box: its bounding box, and images as many edge vectors away as the margin spans planes.
  for (int d = 0; d < 3; ++d) {
    lo[d] = s.box.bound_lo(d) - margin, hi[d] = s.box.bound_hi(d) + margin;
    reach[d] = s.box.periodic(d) ? static_cast<int>(std::ceil(margin / s.box.plane_spacing(d))) + 1 : 0;
    if (!s.box.periodic(d)) {  // shrink-wrapped or fixed faces: atoms may lie anywhere beyond them
      for (const Raw& r : all) {
        const double x = d == 0 ? r.x : d == 1 ? r.y : r.z;
        lo[d] = std::min(lo[d], x - margin), hi[d] = std::max(hi[d], x + margin);
      }
    }
  }
  for (const Raw& r : all)
    for (int sx = -reach[0]; sx <= reach[0]; ++sx)
      for (int sy = -reach[1]; sy <= reach[1]; ++sy)
        for (int sz = -reach[2]; sz <= reach[2]; ++sz) {
          const double x[3] = {r.x, r.y, r.z};
          double u[3];
          s.box.unwrap(x, sx, sy, sz, u);  // r + sx·a + sy·b + sz·c (orthogonal: r + s·L, the same bits)
          const Site p{u[0], u[1], u[2], r.id, r.type, r.mask, sx != 0 || sy != 0 || sz != 0, {sx, sy, sz}};
          if (p.x < lo[0] || p.x > hi[0] || p.y < lo[1] || p.y > hi[1] || p.z < lo[2] || p.z > hi[2])
            continue;
          sites_.push_back(p);
        }
  for (int d = 0; d < 3; ++d) {
    origin_[d] = lo[d];
    n_[d] = std::max(1, std::min(200, static_cast<int>((hi[d] - lo[d]) / std::max(cutoff, 1e-3))));
    width_[d] = (hi[d] - lo[d]) / n_[d];
  }
  head_.assign(static_cast<size_t>(n_[0]) * n_[1] * n_[2], -1);
  next_.assign(sites_.size(), -1);
  for (size_t k = 0; k < sites_.size(); ++k) {
    const Site& p = sites_[k];
    const size_t b = (static_cast<size_t>(cell(p.x, 0)) * n_[1] + cell(p.y, 1)) * n_[2] + cell(p.z, 2);
    next_[k] = head_[b];
    head_[b] = static_cast<int32_t>(k);
  }
}

}  // namespace wmd::md
