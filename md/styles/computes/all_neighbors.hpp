// Neighbours within a cutoff for per-atom analysis computes (coord/atom, centro/atom): every atom of every
// rank, with its periodic images, binned in cells of the cutoff's size. LAMMPS builds an occasional full
// neighbour list over its ghost atoms; gathering all atoms (O(N) memory per rank, at the output steps the
// compute is invoked) gives the same neighbours at any rank count and on either backend.
#pragma once
#include <cstdint>
#include <vector>

#include "md/core/comm.hpp"
#include "md/core/state.hpp"

namespace wmd::md {

class AllNeighbors {
 public:
  struct Site {
    double x, y, z;
    int64_t id;
    int type;
    uint32_t mask;
    bool self_image;  // a shifted copy (not the atom at its own position)
    int shift[3];     // the periodic image: the atom's position plus shift·box length
  };
  /// Gathers the atoms of all ranks with their images within `cutoff` of the box (collective).
  AllNeighbors(const State& s, const Comm& comm, double cutoff);
  /// Calls f(site, dx, dy, dz, r²) for every site within the cutoff of local atom i (r² < cutoff²; the
  /// atom itself excluded), with d = site − x_i.
  template <class F>
  void for_each(const State& s, size_t i, F f) const {
    const Atoms& a = s.atoms;
    const double xi[3] = {a.x[i], a.y[i], a.z[i]};
    int c[3];
    for (int d = 0; d < 3; ++d) c[d] = cell(xi[d], d);
    for (int cx = c[0] - 1; cx <= c[0] + 1; ++cx)
      for (int cy = c[1] - 1; cy <= c[1] + 1; ++cy)
        for (int cz = c[2] - 1; cz <= c[2] + 1; ++cz) {
          if (cx < 0 || cy < 0 || cz < 0 || cx >= n_[0] || cy >= n_[1] || cz >= n_[2]) continue;
          const size_t b = (static_cast<size_t>(cx) * n_[1] + cy) * n_[2] + cz;
          for (int32_t k = head_[b]; k >= 0; k = next_[k]) {
            const Site& p = sites_[k];
            if (p.id == a.id[i] && !p.self_image) continue;
            const double dx = p.x - xi[0], dy = p.y - xi[1], dz = p.z - xi[2];
            const double rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < cutsq_) f(p, dx, dy, dz, rsq);
          }
        }
  }

 private:
  int cell(double x, int d) const {
    const int k = static_cast<int>((x - origin_[d]) / width_[d]);
    return k < 0 ? 0 : k >= n_[d] ? n_[d] - 1 : k;
  }
  std::vector<Site> sites_;
  std::vector<int32_t> head_, next_;
  double origin_[3], width_[3], cutsq_;
  int n_[3];
};

}  // namespace wmd::md
