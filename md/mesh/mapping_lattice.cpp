// The lattice-plane mapping: a crystal's planes found from its coordinates, and the bisection of the atoms'
// plane indices. Thermal displacements move atoms off their lattice planes by a few tenths of an ångström;
// bisecting the coordinates themselves then orders the atoms of a plane by their noise, so a cut through a
// plane no longer leaves each side a subset that is uniform in the other in-plane coordinate, and the window
// radius b grows (Ta slab: docs/fabric.md). Bisecting plane indices keeps the perfect lattice's assignment.
#include <algorithm>
#include <cmath>
#include <functional>

#include "md/mesh/mapping.hpp"

namespace wmd::md::mesh {
namespace {

// The planes along one axis from the coordinates u (periodic: wrapped into [lo, lo + len)).
AxisPlanes find_axis_planes(const double* u, int n, bool periodic, double lo, double len) {
  AxisPlanes out;
  if (n < 8) return out;
  std::vector<double> v(u, u + n);
  if (periodic)
    for (double& w : v) w -= len * std::floor((w - lo) / len);
  std::sort(v.begin(), v.end());
  const int ngap = periodic ? n : n - 1;
  std::vector<double> gap(ngap);
  for (int k = 0; k + 1 < n; ++k) gap[k] = v[k + 1] - v[k];
  if (periodic) gap[n - 1] = v[0] + len - v[n - 1];
  // The gaps between planes are the largest; where they end, the sorted gaps drop by the largest ratio. At
  // most a quarter of the gaps may separate planes (4 atoms a plane on average), which keeps the search out
  // of the smallest gaps inside planes, whose ratios are round-off's.
  const int kmax = std::max(1, ngap / 4);
  std::vector<double> top(gap);
  std::partial_sort(top.begin(), top.begin() + std::min(ngap, kmax + 1), top.end(), std::greater<double>());
  const double tiny = 1e-9 * std::max(1.0, v.back() - v.front());
  int planes_gaps = 0;
  double best = 0;
  for (int k = 1; k <= kmax && k < ngap; ++k) {
    const double r = top[k - 1] / (top[k] + tiny);
    if (r > best) best = r, planes_gaps = k;
  }
  if (planes_gaps == 0 || best < kPlaneSeparation) return out;
  const double cut = 0.5 * (top[planes_gaps - 1] + top[planes_gaps]);
  // Planes: runs of coordinates no more than `cut` apart; their centres are means.
  std::vector<double> sum, cnt;
  for (int k = 0; k < n; ++k) {
    if (k == 0 || gap[k - 1] > cut) sum.push_back(0.0), cnt.push_back(0.0);
    sum.back() += v[k], cnt.back() += 1.0;
  }
  // On a periodic axis a plane across the box face is one plane: its far part joins the first.
  if (periodic && sum.size() > 1 && gap[n - 1] <= cut) {
    sum.front() += sum.back() - len * cnt.back();
    cnt.front() += cnt.back();
    sum.pop_back(), cnt.pop_back();
  }
  const int np = static_cast<int>(sum.size());
  if (np < 2) return out;
  std::vector<double> c(np);
  for (int p = 0; p < np; ++p) c[p] = sum[p] / cnt[p];
  std::sort(c.begin(), c.end());
  std::vector<double> d;
  for (int p = 0; p + 1 < np; ++p) d.push_back(c[p + 1] - c[p]);
  if (periodic) d.push_back(c[0] + len - c[np - 1]);
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  out.spacing = d[d.size() / 2];
  if (periodic) {
    // Keys are read in a frame starting a quarter spacing below the box face, so that a plane on the face
    // (create_atoms puts one there) is the first whether its atoms sit just above the face or wrapped
    // just below the opposite one.
    out.period = len;
    out.frame = lo - 0.25 * out.spacing;
    for (double& w : c) w -= len * std::floor((w - out.frame) / len);
    std::sort(c.begin(), c.end());
  }
  out.centre = std::move(c);
  return out;
}

}  // namespace

double AxisPlanes::key(double u) const {
  if (centre.empty()) return u;
  const int np = static_cast<int>(centre.size());
  if (period > 0) {
    u -= period * std::floor((u - frame) / period);
    // The nearest plane, the first and the last being neighbours across the face.
    const auto it = std::lower_bound(centre.begin(), centre.end(), u);
    const int hi = static_cast<int>(it - centre.begin());
    const int a = (hi + np - 1) % np, b = hi % np;
    auto dist = [&](int p) {
      const double e = std::fabs(u - centre[p]);
      return std::min(e, period - e);
    };
    return dist(a) <= dist(b) ? a : b;
  }
  if (u <= centre.front()) return -std::round((centre.front() - u) / spacing);
  if (u >= centre.back()) return (np - 1) + std::round((u - centre.back()) / spacing);
  const auto it = std::lower_bound(centre.begin(), centre.end(), u);
  const int hi = static_cast<int>(it - centre.begin());
  return u - centre[hi - 1] <= centre[hi] - u ? hi - 1 : hi;
}

double AxisPlanes::swap_key(double u) const {
  if (centre.empty()) return u;
  const int np = static_cast<int>(centre.size());
  // The bracketing planes a < a + 1 (virtual ones at the spacing beyond an open axis's ends) and u's offset
  // from plane a.
  double ca = 0, gap = spacing;
  int a = 0;
  if (period > 0) {
    u -= period * std::floor((u - frame) / period);
    const int hi = static_cast<int>(std::upper_bound(centre.begin(), centre.end(), u) - centre.begin());
    if (hi == 0) {  // below the first plane: from the last, across the face
      a = np - 1, ca = centre[np - 1] - period, gap = centre[0] - ca;
    } else {
      a = hi - 1, ca = centre[a];
      gap = (hi < np ? centre[hi] : centre[0] + period) - ca;
    }
  } else if (u < centre.front()) {
    const double j = std::floor((centre.front() - u) / spacing) + 1;
    a = -static_cast<int>(j), ca = centre.front() - j * spacing;
  } else if (u >= centre.back()) {
    const double j = std::floor((u - centre.back()) / spacing);
    a = np - 1 + static_cast<int>(j), ca = centre.back() + j * spacing;
  } else {
    const int hi = static_cast<int>(std::upper_bound(centre.begin(), centre.end(), u) - centre.begin());
    a = hi - 1, ca = centre[a], gap = centre[hi] - ca;
  }
  const double q = kSwapPlateau * gap, ramp = gap - 2 * q;
  const double f = std::clamp((u - ca - q) / ramp, 0.0, 1.0);
  return a + f;
}

LatticePlanes find_lattice_planes(const Box& box, const double* x, const double* y, const double* z, int n) {
  LatticePlanes p;
  const double* pos[3] = {x, y, z};
  for (int d = 0; d < 3; ++d) p.axis[d] = find_axis_planes(pos[d], n, box.periodic(d), box.lo[d], box.prd(d));
  return p;
}

LatticePlanes follow_lattice_planes(const LatticePlanes& planes, const double* x, const double* y,
                                    const double* z, int n) {
  LatticePlanes out = planes;
  const double* pos[3] = {x, y, z};
  for (int d = 0; d < 3; ++d) {
    AxisPlanes& p = out.axis[d];
    if (!p.found() || p.period > 0 || p.centre.size() < 2) continue;
    // Least squares of u ≈ α + β·c(key(u)), twice (the second pass keys with the moved planes).
    for (int pass = 0; pass < 2; ++pass) {
      double s1 = 0, sc = 0, su = 0, scc = 0, scu = 0;
      const int np = static_cast<int>(p.centre.size());
      for (int i = 0; i < n; ++i) {
        const double k = p.key(pos[d][i]);
        if (k < 0 || k > np - 1) continue;
        const double c = p.centre[static_cast<int>(k)], u = pos[d][i];
        s1 += 1, sc += c, su += u, scc += c * c, scu += c * u;
      }
      const double det = s1 * scc - sc * sc;
      if (s1 < 2 || !(det > 0)) break;
      const double beta = (s1 * scu - sc * su) / det, alpha = (su - beta * sc) / s1;
      for (double& c : p.centre) c = alpha + beta * c;
      p.spacing *= beta;
    }
  }
  return out;
}

Mapping map_atoms_lattice(const Box& box, const double* x, const double* y, const double* z,
                          const int64_t* id, int n, int width, int height, const LatticePlanes& planes) {
  const bool wrap = box.periodic(0) || box.periodic(1);
  if (!planes.found()) return map_atoms_by_keys(wrap, x, y, z, id, n, width, height);
  const double* pos[3] = {x, y, z};
  std::vector<double> key[3];
  for (int d = 0; d < 3; ++d) {
    key[d].resize(n);
    for (int i = 0; i < n; ++i) key[d][i] = planes.axis[d].key(pos[d][i]);
  }
  return map_atoms_by_keys(wrap, key[0].data(), key[1].data(), key[2].data(), id, n, width, height);
}

Mapping map_atoms(const Box& box, const double* x, const double* y, const double* z, const int64_t* id, int n,
                  int width, int height, MappingKind kind) {
  if (kind == MappingKind::bisection) return map_atoms(box, x, y, z, id, n, width, height);
  return map_atoms_lattice(box, x, y, z, id, n, width, height, find_lattice_planes(box, x, y, z, n));
}

}  // namespace wmd::md::mesh
