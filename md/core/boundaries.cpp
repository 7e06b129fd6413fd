#include "md/core/boundaries.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/error.hpp"

namespace wmd::md {

namespace {

void check_finite(const Atoms& a, int64_t step) {
  const double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  static const char* const kAxis[3] = {"x", "y", "z"};
  for (size_t i = 0; i < a.size(); ++i)
    for (int d = 0; d < 3; ++d)
      if (!std::isfinite(pos[d][i]))
        throw RunError("atom " + std::to_string(a.id[i]) + " has a non-finite " + kAxis[d] +
                       " coordinate at step " + std::to_string(step));
}

}  // namespace

void atoms_to_lamda(const Box& b, Atoms& a) {
  for (size_t i = 0; i < a.size(); ++i) {
    double p[3] = {a.x[i], a.y[i], a.z[i]};
    b.to_lamda(p, p);
    a.x[i] = p[0], a.y[i] = p[1], a.z[i] = p[2];
  }
}

void atoms_from_lamda(const Box& b, Atoms& a) {
  for (size_t i = 0; i < a.size(); ++i) {
    double p[3] = {a.x[i], a.y[i], a.z[i]};
    b.from_lamda(p, p);
    a.x[i] = p[0], a.y[i] = p[1], a.z[i] = p[2];
  }
}

void wrap_fractional(const Box& b, Atoms& a, int64_t step) {
  check_finite(a, step);
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  double* vel[3] = {a.vx.data(), a.vy.data(), a.vz.data()};
  // The velocity a wrap along d adds with remap v: the rate of edge vector d (a: x; b: xy, y; c: xz, yz, z).
  const double rate[3][3] = {
      {b.h_rate[0], 0.0, 0.0}, {b.h_rate[5], b.h_rate[1], 0.0}, {b.h_rate[4], b.h_rate[3], b.h_rate[2]}};
  for (int d = 0; d < 3; ++d) {
    if (!b.periodic(d)) continue;
    for (size_t i = 0; i < a.size(); ++i) {
      const int before = img[d][i];
      wrap_periodic(pos[d][i], img[d][i], 0.0, 1.0);
      if ((a.mask[i] & b.vremap_group) && img[d][i] != before)
        for (int e = 0; e <= d; ++e) vel[e][i] -= (img[d][i] - before) * rate[d][e];
    }
  }
}

void flip_images(const Box& b, Atoms& a, int m, int n, int p, const std::string& who) {
  for (size_t i = 0; i < a.size(); ++i) {
    // B' = B + m·A, C' = C + p·B + n·A keep x + a·A + b·B + c·C.
    a.iy[i] -= p * a.iz[i];
    a.ix[i] -= m * a.iy[i] + n * a.iz[i];
    double x[3] = {a.x[i], a.y[i], a.z[i]};
    for (int d = 0; d < 3; ++d)
      if (!(point_widths_outside(b, x, d) <= kMaxRemapWidths))
        throw RunError(who + ": atom " + std::to_string(a.id[i]) +
                       " lies far outside the box at the flip: its motion is not finite (diverged)");
    int image[3] = {a.ix[i], a.iy[i], a.iz[i]};
    remap_point(b, x, image);
    a.ix[i] = image[0], a.iy[i] = image[1], a.iz[i] = image[2];
    b.to_lamda(x, x);
    b.from_lamda(x, x);
    a.x[i] = x[0], a.y[i] = x[1], a.z[i] = x[2];
  }
}

bool fit_triclinic_shrink(Box& b, Atoms& a, const Comm& comm, int64_t step) {
  bool shrink = false;
  for (int d = 0; d < 3; ++d)
    shrink |= !b.periodic(d) && !(b.face[d][0] == Face::fixed && b.face[d][1] == Face::fixed);
  if (!shrink) return false;
  double mn[3], mx[3];
  const double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  for (int d = 0; d < 3; ++d) {
    mn[d] = std::numeric_limits<double>::max(), mx[d] = -mn[d];
    for (size_t i = 0; i < a.size(); ++i)
      mn[d] = std::min(mn[d], pos[d][i]), mx[d] = std::max(mx[d], pos[d][i]);
    mn[d] = comm.min(mn[d]), mx[d] = comm.max(mx[d]);
  }
  const Box old = b;
  atoms_from_lamda(old, a);
  bool changed = false;
  for (int d = 0; d < 3; ++d) {
    if (b.periodic(d) || (b.face[d][0] == Face::fixed && b.face[d][1] == Face::fixed) || mn[d] > mx[d])
      continue;
    // The extent along edge d alone (the other fractions 0), in box coordinates of the old box.
    double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {0.0, 0.0, 0.0};
    lo[d] = mn[d], hi[d] = mx[d];
    old.from_lamda(lo, lo);
    old.from_lamda(hi, hi);
    const double small = 1.0e-4 * std::max(b.min_hi[d] - b.min_lo[d], 1.0e-10);
    double blo = b.lo[d], bhi = b.hi[d];
    if (b.face[d][0] == Face::shrink) blo = lo[d] - small;
    if (b.face[d][0] == Face::shrink_min) blo = std::min(lo[d] - small, b.min_lo[d]);
    if (b.face[d][1] == Face::shrink) bhi = hi[d] + small;
    if (b.face[d][1] == Face::shrink_min) bhi = std::max(hi[d] + small, b.min_hi[d]);
    if (!(blo < bhi))
      throw RunError("shrink-wrapping made an illegal simulation box along " + std::string(1, "xyz"[d]));
    changed |= blo != b.lo[d] || bhi != b.hi[d];
    b.lo[d] = blo, b.hi[d] = bhi;
  }
  atoms_to_lamda(b, a);
  wrap_fractional(b, a, step);
  return changed;
}

bool wrap_and_fit_box(State& s, const Comm& comm) {
  Atoms& a = s.atoms;
  const size_t n = a.size();
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  if (s.box.triclinic) {
    atoms_to_lamda(s.box, a);
    wrap_fractional(s.box, a, s.step);
    const bool changed = fit_triclinic_shrink(s.box, a, comm, s.step);
    atoms_from_lamda(s.box, a);
    return changed;
  }
  check_finite(a, s.step);
  bool changed = false;
  for (int d = 0; d < 3; ++d) {
    Box& b = s.box;
    if (b.periodic(d)) {
      double* vel = d == 0 ? a.vx.data() : d == 1 ? a.vy.data() : a.vz.data();
      for (size_t i = 0; i < n; ++i) {
        const int before = img[d][i];
        wrap_periodic(pos[d][i], img[d][i], b.lo[d], b.hi[d]);
        remap_velocity(b, d, a.mask[i], before, img[d][i], vel[i]);
      }
      continue;
    }
    if (b.face[d][0] == Face::fixed && b.face[d][1] == Face::fixed) continue;
    double mn = std::numeric_limits<double>::max(), mx = -mn;
    if (n > 0) {
      const auto [pmn, pmx] = std::minmax_element(pos[d], pos[d] + n);
      mn = *pmn, mx = *pmx;
    }
    mn = comm.min(mn), mx = comm.max(mx);
    if (mn > mx) continue;
    // LAMMPS's small: 1e-4 of the box length set by set_initial_box (create_box, read_data, replicate,
    // change_box: min_lo..min_hi), not of the current, already shrink-wrapped length.
    const double small = 1.0e-4 * std::max(b.min_hi[d] - b.min_lo[d], 1.0e-10);
    double lo = b.lo[d], hi = b.hi[d];
    if (b.face[d][0] == Face::shrink) lo = mn - small;
    if (b.face[d][0] == Face::shrink_min) lo = std::min(mn - small, b.min_lo[d]);
    if (b.face[d][1] == Face::shrink) hi = mx + small;
    if (b.face[d][1] == Face::shrink_min) hi = std::max(mx + small, b.min_hi[d]);
    changed |= lo != b.lo[d] || hi != b.hi[d];
    b.lo[d] = lo, b.hi[d] = hi;
  }
  return changed;
}

}  // namespace wmd::md
