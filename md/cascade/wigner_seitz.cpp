#include "md/cascade/wigner_seitz.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace wmd::md {
namespace {

// Uniform bins over the box, with minimum-image neighbour search in periodic directions. A triclinic box is
// binned in fractional coordinates, each bin at least min_size between its faces, and distances take the
// nearest periodic image along the edge vectors.
struct Bins {
  int n[3];
  double lo[3], len[3], size[3];
  bool periodic[3];
  Box box;
  std::vector<int> head, next;

  Bins(const Box& b, double min_size, const std::vector<double>& pts) : box(b) {
    for (int d = 0; d < 3; ++d) {
      lo[d] = box.triclinic ? 0.0 : box.lo[d], len[d] = box.triclinic ? 1.0 : box.prd(d);
      periodic[d] = box.periodic(d);
      const double width = box.triclinic ? box.plane_spacing(d) : len[d];
      n[d] = std::max(1, static_cast<int>(std::floor(width / min_size)));
      size[d] = len[d] / n[d];
    }
    head.assign(static_cast<size_t>(n[0]) * n[1] * n[2], -1);
    const size_t np = pts.size() / 3;
    next.assign(np, -1);
    for (size_t i = 0; i < np; ++i) {
      const int b = bin_of(&pts[3 * i]);
      next[i] = head[b];
      head[b] = static_cast<int>(i);
    }
  }
  int coord(double x, int d) const {
    int c = static_cast<int>(std::floor((x - lo[d]) / size[d]));
    if (periodic[d]) {
      c %= n[d];
      if (c < 0) c += n[d];
    } else {
      c = std::clamp(c, 0, n[d] - 1);
    }
    return c;
  }
  // The coordinates bins are cut in: the position, or a triclinic box's fractional coordinates.
  void binned(const double* p, double q[3]) const {
    if (box.triclinic)
      box.to_lamda(p, q);
    else
      q[0] = p[0], q[1] = p[1], q[2] = p[2];
  }
  int bin_of(const double* p) const {
    double q[3];
    binned(p, q);
    return (coord(q[2], 2) * n[1] + coord(q[1], 1)) * n[0] + coord(q[0], 0);
  }
  // Calls f(index) for every point in the bins within `reach` bins of p's bin.
  template <class F>
  void around(const double* p, int reach, F&& f) const {
    int c[3];
    double q[3];
    binned(p, q);
    for (int d = 0; d < 3; ++d) c[d] = coord(q[d], d);
    int lo_[3], hi_[3];
    for (int d = 0; d < 3; ++d) {
      if (periodic[d] && 2 * reach + 1 >= n[d]) {
        lo_[d] = 0, hi_[d] = n[d] - 1;  // every bin once
      } else {
        lo_[d] = c[d] - reach, hi_[d] = c[d] + reach;
      }
    }
    for (int k = lo_[2]; k <= hi_[2]; ++k)
      for (int j = lo_[1]; j <= hi_[1]; ++j)
        for (int i = lo_[0]; i <= hi_[0]; ++i) {
          int b[3] = {i, j, k};
          bool skip = false;
          for (int d = 0; d < 3; ++d) {
            if (periodic[d] && !(2 * reach + 1 >= n[d])) {
              b[d] %= n[d];
              if (b[d] < 0) b[d] += n[d];
            } else if (b[d] < 0 || b[d] >= n[d]) {
              skip = true;
            }
          }
          if (skip) continue;
          for (int q = head[(b[2] * n[1] + b[1]) * n[0] + b[0]]; q >= 0; q = next[q]) f(q);
        }
  }
  double dist2(const double* a, const double* b) const {
    if (box.triclinic) return dist2_triclinic(a, b);
    double s = 0.0;
    for (int d = 0; d < 3; ++d) {
      double x = a[d] - b[d];
      if (periodic[d]) x -= len[d] * std::round(x / len[d]);
      s += x * x;
    }
    return s;
  }
  // The nearest image on a triclinic box: LAMMPS's minimum image, then its neighbours one edge vector away
  // along each periodic direction (a tilted cell's nearest image need not be the minimum image).
  double dist2_triclinic(const double* a, const double* b) const {
    double d0[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    box.minimum_image(d0[0], d0[1], d0[2]);
    double best = d0[0] * d0[0] + d0[1] * d0[1] + d0[2] * d0[2];
    const int r[3] = {periodic[0] ? 1 : 0, periodic[1] ? 1 : 0, periodic[2] ? 1 : 0};
    for (int sz = -r[2]; sz <= r[2]; ++sz)
      for (int sy = -r[1]; sy <= r[1]; ++sy)
        for (int sx = -r[0]; sx <= r[0]; ++sx) {
          double u[3];
          box.unwrap(d0, sx, sy, sz, u);
          best = std::min(best, u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        }
    return best;
  }
};

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

std::vector<double> perfect_lattice_sites(const Box& box, const double spacing[3],
                                          const std::vector<std::array<double, 3>>& basis) {
  int n[3];
  double a[3];
  for (int d = 0; d < 3; ++d) {
    n[d] = std::max(1, static_cast<int>(std::lround(box.prd(d) / spacing[d])));
    a[d] = box.prd(d) / n[d];
  }
  std::vector<double> sites;
  sites.reserve(static_cast<size_t>(n[0]) * n[1] * n[2] * basis.size() * 3);
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        for (const auto& b : basis) {
          sites.push_back(box.lo[0] + (i + b[0]) * a[0]);
          sites.push_back(box.lo[1] + (j + b[1]) * a[1]);
          sites.push_back(box.lo[2] + (k + b[2]) * a[2]);
        }
  return sites;
}

double ws_cluster_cutoff(const std::string& style, double a) {
  // Shell radii in units of a: fcc 1/√2, 1, √1.5; bcc √3/2, 1, √2; sc 1, √2, √3.
  if (style == "fcc") return 0.5 * (1.0 + std::sqrt(1.5)) * a;
  if (style == "bcc") return 0.5 * (1.0 + std::sqrt(2.0)) * a;
  return 0.5 * (std::sqrt(2.0) + std::sqrt(3.0)) * a;
}

std::vector<int> nearest_sites(const Box& box, const std::vector<double>& sites,
                               const std::vector<double>& pos) {
  const size_t ns = sites.size() / 3, na = pos.size() / 3;
  std::vector<int> nearest(na, -1);
  if (ns == 0) return nearest;
  // Bin edge ~ the mean site spacing: the nearest site lies within the atom's bin or the next ring of bins
  // unless the atom is far from every site, in which case the search widens.
  const double vol_per_site = box.volume() / static_cast<double>(ns);
  const double bin = std::cbrt(vol_per_site);
  Bins bins(box, bin, sites);
  for (size_t i = 0; i < na; ++i) {
    const double* p = &pos[3 * i];
    int best = -1;
    double best_d2 = std::numeric_limits<double>::max();
    for (int reach = 1; best < 0 || std::sqrt(best_d2) > (reach - 0.5) * bin; ++reach) {
      best = -1, best_d2 = std::numeric_limits<double>::max();
      bins.around(p, reach, [&](int q) {
        const double d2 = bins.dist2(p, &sites[3 * q]);
        if (d2 < best_d2 || (d2 == best_d2 && q < best)) best_d2 = d2, best = q;
      });
      if (reach > 64) break;
    }
    nearest[i] = best;
  }
  return nearest;
}

WsResult wigner_seitz(const Box& box, const std::vector<double>& sites, const std::vector<double>& pos,
                      double cluster_cutoff) {
  WsResult r;
  const size_t ns = sites.size() / 3;
  r.occupancy.assign(ns, 0);
  if (ns == 0) return r;
  for (const int best : nearest_sites(box, sites, pos)) ++r.occupancy[best];
  std::vector<int> defects;  // sites that are vacant (occupancy 0) or multiply occupied
  for (size_t s = 0; s < ns; ++s) {
    if (r.occupancy[s] == 0) ++r.vacancies, defects.push_back(static_cast<int>(s));
    if (r.occupancy[s] > 1) r.interstitials += r.occupancy[s] - 1, defects.push_back(static_cast<int>(s));
  }
  r.frenkel_pairs = std::min(r.vacancies, r.interstitials);
  // Clusters: union–find over defect sites within the cutoff (vacancies and interstitials each with their own
  // kind for the per-kind counts, all together for `clusters`).
  const size_t nd = defects.size();
  if (nd == 0) return r;
  std::vector<double> dpos(3 * nd);
  for (size_t k = 0; k < nd; ++k)
    for (int d = 0; d < 3; ++d) dpos[3 * k + d] = sites[3 * defects[k] + d];
  Bins dbins(box, std::max(cluster_cutoff, 1e-6), dpos);
  std::vector<int> all(nd), same(nd);
  std::iota(all.begin(), all.end(), 0);
  std::iota(same.begin(), same.end(), 0);
  const double c2 = cluster_cutoff * cluster_cutoff;
  for (size_t k = 0; k < nd; ++k) {
    dbins.around(&dpos[3 * k], 1, [&](int q) {
      if (q <= static_cast<int>(k) || dbins.dist2(&dpos[3 * k], &dpos[3 * q]) > c2) return;
      all[find_root(all, static_cast<int>(k))] = find_root(all, q);
      const bool vk = r.occupancy[defects[k]] == 0, vq = r.occupancy[defects[q]] == 0;
      if (vk == vq) same[find_root(same, static_cast<int>(k))] = find_root(same, q);
    });
  }
  std::vector<int64_t> size_all(nd, 0), size_same(nd, 0);
  for (size_t k = 0; k < nd; ++k) {
    const int64_t w = r.occupancy[defects[k]] == 0 ? 1 : r.occupancy[defects[k]] - 1;
    size_all[find_root(all, static_cast<int>(k))] += w;
    size_same[find_root(same, static_cast<int>(k))] += w;
  }
  for (size_t k = 0; k < nd; ++k) {
    if (find_root(all, static_cast<int>(k)) == static_cast<int>(k)) {
      ++r.clusters;
      r.largest_cluster = std::max(r.largest_cluster, size_all[k]);
    }
    if (find_root(same, static_cast<int>(k)) == static_cast<int>(k) && size_same[k] >= 2) {
      (r.occupancy[defects[k]] == 0 ? r.vacancy_clusters : r.interstitial_clusters) += 1;
    }
  }
  return r;
}

}  // namespace wmd::md
