#include "md/core/lammps_order.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace wmd::md {

namespace {

/// A sort key that travels through Comm::allgather (trivially copyable, unlike std::pair).
struct Key {
  int64_t a, b;
  bool operator<(const Key& o) const { return a != o.a ? a < o.a : b < o.b; }
};

/// Makes the orders a permutation of 0..N−1 if they are not (checkpoints from before the order was kept,
/// atoms added without one): ranks them by (order, id).
void normalize_orders(const Comm& comm, Atoms& a) {
  const int64_t n = comm.sum(static_cast<int64_t>(a.size()));
  int64_t lo = n, hi = -1;
  for (int64_t o : a.order) lo = std::min(lo, o), hi = std::max(hi, o);
  if (n == 0 || (comm.min(lo) == 0 && comm.max(hi) == n - 1)) return;
  std::vector<Key> local(a.size());
  for (size_t i = 0; i < a.size(); ++i) local[i] = {a.order[i], a.id[i]};
  auto all = comm.allgather(local);
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i < a.size(); ++i)
    a.order[i] = std::lower_bound(all.begin(), all.end(), local[i]) - all.begin();
}

}  // namespace

OrderedAtoms gather_ordered(const Comm& comm, const Atoms& a) {
  OrderedAtoms g;
  const std::vector<int64_t> order = comm.allgather(a.order);
  const std::vector<int64_t> id = comm.allgather(a.id);
  const std::vector<int> type = comm.allgather(a.type);
  const std::vector<double> x = comm.allgather(a.x), y = comm.allgather(a.y), z = comm.allgather(a.z);
  const std::vector<uint32_t> mask = comm.allgather(a.mask);
  const size_t n = order.size();
  g.id.resize(n), g.type.resize(n), g.x.resize(n), g.y.resize(n), g.z.resize(n), g.mask.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const size_t o = static_cast<size_t>(order[k]);
    g.id[o] = id[k], g.type[o] = type[k], g.x[o] = x[k], g.y[o] = y[k], g.z[o] = z[k], g.mask[o] = mask[k];
  }
  return g;
}

int64_t delete_in_lammps_order(const Comm& comm, Atoms& a, const std::vector<char>& del) {
  normalize_orders(comm, a);
  const int64_t n_all = comm.sum(static_cast<int64_t>(a.size()));
  std::vector<int64_t> mine;
  for (size_t i = 0; i < a.size(); ++i)
    if (del[i]) mine.push_back(a.order[i]);
  std::vector<int64_t> gone = comm.allgather(mine);
  std::sort(gone.begin(), gone.end());
  const std::unordered_set<int64_t> is_gone(gone.begin(), gone.end());
  // LAMMPS's loop: slot i holding a deleted atom takes the atom of the last slot, and is looked at again.
  // Slots above the current end are never written, so the last slot still holds its original atom.
  std::unordered_map<int64_t, int64_t> moved;  // original order → new order
  int64_t n = n_all;
  for (const int64_t d : gone) {
    if (d >= n) break;
    while (true) {
      const int64_t last = --n;
      if (last == d) break;
      if (!is_gone.count(last)) {
        moved[last] = d;
        break;
      }
    }
  }
  std::vector<char> keep(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    keep[i] = !del[i];
    const auto it = moved.find(a.order[i]);
    if (keep[i] && it != moved.end()) a.order[i] = it->second;
  }
  a.compact(keep);
  return static_cast<int64_t>(gone.size());
}

void compress_ids(Atoms& a) {
  for (size_t i = 0; i < a.size(); ++i) a.id[i] = a.order[i] + 1;
}

void sort_in_lammps_order(const Comm& comm, const Box& box, Atoms& a, AtomSortSettings& sort, int64_t step,
                          double cutneigh) {
  if (sort.every <= 0) return;
  sort.next_step = (step / sort.every) * sort.every + sort.every;
  const double binsize = sort.binsize > 0.0 ? sort.binsize : 0.5 * cutneigh;
  if (!(binsize > 0.0)) return;
  const double bininv = 1.0 / binsize;
  // A triclinic box: LAMMPS sorts while its atoms are in fractional coordinates, yet sizes the bins from the
  // box's bounding box in box units — the bins of (λ − bboxlo)·inv are LAMMPS's, however few that makes.
  const bool tri = box.triclinic;
  double blo[3], bhi[3];
  for (int d = 0; d < 3; ++d) blo[d] = box.lo[d], bhi[d] = box.hi[d];
  if (tri) box.corner_bounds(blo, bhi);
  int nbin[3];
  double inv[3];
  for (int d = 0; d < 3; ++d) {
    nbin[d] = static_cast<int>((bhi[d] - blo[d]) * bininv);
    if (nbin[d] == 0) nbin[d] = 1;
    inv[d] = nbin[d] / (bhi[d] - blo[d]);
  }
  if (static_cast<int64_t>(nbin[0]) * nbin[1] * nbin[2] == 1) return;
  normalize_orders(comm, a);
  // Bins of the positions after LAMMPS's pbc() (one wrap per periodic direction), clamped to the grid.
  std::vector<Key> key(a.size());
  const double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  for (size_t i = 0; i < a.size(); ++i) {
    int c[3];
    double p[3] = {pos[0][i], pos[1][i], pos[2][i]};
    if (tri) box.to_lamda(p, p);
    for (int d = 0; d < 3; ++d) {
      double x = p[d];
      const double lo = tri ? 0.0 : box.lo[d], hi = tri ? 1.0 : box.hi[d], L = tri ? 1.0 : box.prd(d);
      if (box.periodic(d)) {
        if (x < lo) x += L;
        if (x >= hi) x = std::max(x - L, lo);
      }
      c[d] = static_cast<int>((x - blo[d]) * inv[d]);
      c[d] = std::min(std::max(c[d], 0), nbin[d] - 1);
    }
    key[i] = {(static_cast<int64_t>(c[2]) * nbin[1] + c[1]) * nbin[0] + c[0], a.order[i]};
  }
  auto all = comm.allgather(key);
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i < a.size(); ++i)
    a.order[i] = std::lower_bound(all.begin(), all.end(), key[i]) - all.begin();
}

}  // namespace wmd::md
