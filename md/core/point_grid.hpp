// A cell list over the box for commands that look for atoms near a point (create_atoms … overlap,
// delete_atoms overlap): every periodic image within the cutoff is visited, with its integer shift. A
// triclinic box is binned in fractional coordinates (cells as wide as the cutoff spans between lattice
// planes) and its images lie along the edge vectors.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "md/core/box.hpp"

namespace wmd::md {

class PointGrid {
 public:
  PointGrid(const Box& box, double cut) : box_(box), cut_(cut) {
    // Capped in floating point first: a cutoff far below the box width must not overflow the int.
    for (int d = 0; d < 3; ++d) n_[d] = std::max(1, static_cast<int>(std::fmin(256.0, width(d) / cut)));
    head_.assign(static_cast<size_t>(n_[0]) * n_[1] * n_[2], -1);
  }
  /// Adds point k (indices must be added in increasing order, from 0).
  void add(int k, double x, double y, double z) {
    const int c = cell_of(x, y, z);
    next_.resize(std::max<size_t>(next_.size(), static_cast<size_t>(k) + 1), -1);
    xs_.resize(next_.size() * 3);
    xs_[3 * k] = x, xs_[3 * k + 1] = y, xs_[3 * k + 2] = z;
    next_[k] = head_[c];
    head_[c] = k;
  }
  /// True when some stored point's nearest image is closer than the cutoff (create_atoms … overlap). Only
  /// the nearest image is measured, so the cost does not grow with how many images a long cutoff reaches.
  bool any_within(double x, double y, double z) const {
    const double p[3] = {x, y, z};
    const double cutsq = cut_ * cut_;
    return for_each_stored(p, [&](int k) {
      if (box_.triclinic) {  // LAMMPS's minimum_image along the edge vectors
        double dx = p[0] - xs_[3 * k], dy = p[1] - xs_[3 * k + 1], dz = p[2] - xs_[3 * k + 2];
        box_.minimum_image(dx, dy, dz);
        return dx * dx + dy * dy + dz * dz < cutsq;
      }
      double rsq = 0.0;
      for (int d = 0; d < 3; ++d) {
        double delta = p[d] - xs_[3 * k + d];
        if (box_.periodic(d)) delta -= box_.prd(d) * std::nearbyint(delta / box_.prd(d));
        rsq += delta * delta;
      }
      return rsq < cutsq;
    });
  }
  /// Calls fn(k, rsq, shifted) for every stored point k with an image closer than the cutoff to (x, y, z);
  /// `shifted` is true for an image across a periodic face (LAMMPS's ghost atoms).
  template <class Fn>
  void visit(double x, double y, double z, Fn fn) const {
    const double p[3] = {x, y, z};
    const double cutsq = cut_ * cut_;
    if (box_.triclinic) {
      visit_triclinic(p, fn);
      return;
    }
    for_each_stored(p, [&](int k) {
      // The images of k along each periodic direction that come within the cutoff.
      int s0[3], s1[3];
      for (int d = 0; d < 3; ++d) {
        s0[d] = s1[d] = 0;
        if (!box_.periodic(d)) continue;
        const double L = box_.prd(d), q = xs_[3 * k + d];
        s0[d] = static_cast<int>(std::ceil((p[d] - cut_ - q) / L));
        s1[d] = static_cast<int>(std::floor((p[d] + cut_ - q) / L));
      }
      for (int sz = s0[2]; sz <= s1[2]; ++sz)
        for (int sy = s0[1]; sy <= s1[1]; ++sy)
          for (int sx = s0[0]; sx <= s1[0]; ++sx) {
            const double dx = p[0] - (xs_[3 * k] + sx * box_.prd(0));
            const double dy = p[1] - (xs_[3 * k + 1] + sy * box_.prd(1));
            const double dz = p[2] - (xs_[3 * k + 2] + sz * box_.prd(2));
            const double rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < cutsq) fn(k, rsq, sx != 0 || sy != 0 || sz != 0);
          }
      return false;
    });
  }

 private:
  // The width along d that the cells divide: the box length, or the spacing of a triclinic box's planes of
  // constant fractional coordinate d.
  double width(int d) const { return box_.triclinic ? box_.plane_spacing(d) : box_.prd(d); }
  // Point p's coordinate along d in units of the box width (fractional on a triclinic box).
  double fraction(const double p[3], int d) const {
    if (!box_.triclinic) return (p[d] - box_.lo[d]) / box_.prd(d);
    double l[3];
    box_.to_lamda(p, l);
    return l[d];
  }
  // visit() on a triclinic box: the images q + sx·a + sy·b + sz·c of each stored point whose fractional
  // distance along some direction can be within the cutoff's span of planes.
  template <class Fn>
  void visit_triclinic(const double p[3], Fn fn) const {
    const double cutsq = cut_ * cut_;
    double lp[3];
    box_.to_lamda(p, lp);
    for_each_stored(p, [&](int k) {
      const double q[3] = {xs_[3 * k], xs_[3 * k + 1], xs_[3 * k + 2]};
      double lq[3];
      box_.to_lamda(q, lq);
      int s0[3], s1[3];
      for (int d = 0; d < 3; ++d) {
        s0[d] = s1[d] = 0;
        if (!box_.periodic(d)) continue;
        const double reach = cut_ / box_.plane_spacing(d);
        s0[d] = static_cast<int>(std::ceil(lp[d] - reach - lq[d]));
        s1[d] = static_cast<int>(std::floor(lp[d] + reach - lq[d]));
      }
      for (int sz = s0[2]; sz <= s1[2]; ++sz)
        for (int sy = s0[1]; sy <= s1[1]; ++sy)
          for (int sx = s0[0]; sx <= s1[0]; ++sx) {
            double u[3];
            box_.unwrap(q, sx, sy, sz, u);
            const double dx = p[0] - u[0], dy = p[1] - u[1], dz = p[2] - u[2];
            const double rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < cutsq) fn(k, rsq, sx != 0 || sy != 0 || sz != 0);
          }
      return false;
    });
  }

  // Calls visit(k) for every stored point k in the cells the cutoff sphere around p can reach, each cell once
  // (a span as wide as the grid is the grid: periodic images come from the caller's shifts), until visit
  // returns true; returns whether it did. The range is found in floating point, so a cutoff far beyond the
  // box cannot overflow an int.
  template <class Visit>
  bool for_each_stored(const double p[3], Visit visit) const {
    int lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      const double f = fraction(p, d) * n_[d], reach = cut_ / width(d) * n_[d];
      const double a = std::floor(f - reach) - 1.0, b = std::floor(f + reach) + 1.0;
      if (!box_.periodic(d)) {
        lo[d] = static_cast<int>(std::fmax(a, 0.0)), hi[d] = static_cast<int>(std::fmin(b, n_[d] - 1.0));
      } else if (!(b - a + 1.0 < n_[d])) {
        lo[d] = 0, hi[d] = n_[d] - 1;  // also for a non-finite reach
      } else {
        lo[d] = static_cast<int>(a), hi[d] = static_cast<int>(b);
      }
    }
    for (int cz = lo[2]; cz <= hi[2]; ++cz)
      for (int cy = lo[1]; cy <= hi[1]; ++cy)
        for (int cx = lo[0]; cx <= hi[0]; ++cx) {
          const int c[3] = {cx, cy, cz};
          int w[3];
          for (int d = 0; d < 3; ++d) w[d] = ((c[d] % n_[d]) + n_[d]) % n_[d];
          for (int k = head_[(static_cast<size_t>(w[2]) * n_[1] + w[1]) * n_[0] + w[0]]; k >= 0; k = next_[k])
            if (visit(k)) return true;
        }
    return false;
  }

  int cell_of(double x, double y, double z) const {
    const double p[3] = {x, y, z};
    int c[3];
    for (int d = 0; d < 3; ++d) {
      c[d] = static_cast<int>(std::floor(fraction(p, d) * n_[d]));
      if (box_.periodic(d))
        c[d] = ((c[d] % n_[d]) + n_[d]) % n_[d];
      else
        c[d] = std::min(std::max(c[d], 0), n_[d] - 1);
    }
    return (c[2] * n_[1] + c[1]) * n_[0] + c[0];
  }

  Box box_;
  double cut_;
  int n_[3];
  std::vector<int> head_, next_;
  std::vector<double> xs_;
};

}  // namespace wmd::md
