// The simulation box with per-direction boundary styles (LAMMPS p, f, s, m): orthogonal, or LAMMPS's
// triclinic parallelepiped (tilt factors xy xz yz; edge vectors a = (lx,0,0), b = (xy,ly,0), c = (xz,yz,lz)
// from lo). Fractional (lamda) coordinates, images and minimum images follow LAMMPS's Domain arithmetic term
// by term, so that a triclinic run rounds as LAMMPS's does; on an orthogonal box the same formulas give the
// orthogonal bits (the tilt terms add exact zeros).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "base/error.hpp"

namespace wmd::md {

/// LAMMPS boundary style of one box face.
enum class Face : char { periodic = 'p', fixed = 'f', shrink = 's', shrink_min = 'm' };

struct Box {
  double lo[3] = {0.0, 0.0, 0.0};
  double hi[3] = {0.0, 0.0, 0.0};
  Face face[3][2] = {
      {Face::periodic, Face::periodic}, {Face::periodic, Face::periodic}, {Face::periodic, Face::periodic}};
  double min_lo[3] = {0.0, 0.0, 0.0};  // initial bounds, the floor of 'm' faces
  double min_hi[3] = {0.0, 0.0, 0.0};
  bool defined = false;
  // fix deform's rates of change (LAMMPS's domain->h_rate of the lengths and h_ratelo of the lower faces,
  // Å/ps), set at each run's init; compute temp/deform reads them. With `remap v` the fix's group is
  // vremap_group (LAMMPS's deform_vremap, deform_groupbit); 0: none.
  // h_rate[3..5]: the tilts' rates, LAMMPS's order yz, xz, xy.
  double h_rate[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  double h_ratelo[3] = {0.0, 0.0, 0.0};
  uint32_t vremap_group = 0;
  // Tilt factors (Å): zero, and refused by the commands that change them, unless `triclinic`.
  double xy = 0.0, xz = 0.0, yz = 0.0;
  bool triclinic = false;
  bool tilt_large = false;  // `box tilt large`: a skew beyond half a length is allowed (LAMMPS's !tiltsmall)

  /// Edge length in direction d.
  double prd(int d) const { return hi[d] - lo[d]; }
  /// True when direction d is periodic.
  bool periodic(int d) const { return face[d][0] == Face::periodic; }
  /// LAMMPS's set_initial_box check: a tilt beyond half the length it is measured against (xy, xz: lx;
  /// yz: ly) along a periodic direction, which LAMMPS refuses unless `box tilt large`.
  bool skew_too_large() const {
    return triclinic &&
           ((std::fabs(xy / prd(0)) > 0.5 && periodic(0)) || (std::fabs(xz / prd(0)) > 0.5 && periodic(0)) ||
            (std::fabs(yz / prd(1)) > 0.5 && periodic(1)));
  }
  /// The unit cube [0, 1)³ with this box's faces: the frame in which LAMMPS wraps, migrates and images the
  /// atoms of a triclinic box (their fractional coordinates).
  Box lamda_frame() const {
    Box u = *this;
    for (int d = 0; d < 3; ++d) u.lo[d] = u.min_lo[d] = 0.0, u.hi[d] = u.min_hi[d] = 1.0;
    u.xy = u.xz = u.yz = 0.0;
    u.triclinic = false;
    return u;
  }
  /// Box volume in Å³ (the tilts leave it lx·ly·lz).
  double volume() const { return prd(0) * prd(1) * prd(2); }

  /// LAMMPS's h_inv[0..5] (Voigt order xx yy zz yz xz xy) of the current box.
  void h_inv(double hi6[6]) const {
    const double h0 = prd(0), h1 = prd(1), h2 = prd(2);
    hi6[0] = 1.0 / h0, hi6[1] = 1.0 / h1, hi6[2] = 1.0 / h2;
    hi6[3] = -yz / (h1 * h2);
    hi6[4] = (yz * xy - h1 * xz) / (h0 * h1 * h2);
    hi6[5] = -xy / (h0 * h1);
  }
  /// Cartesian point → fractional coordinates (LAMMPS's Domain::x2lamda).
  void to_lamda(const double x[3], double l[3]) const {
    double hv[6];
    h_inv(hv);
    const double d0 = x[0] - lo[0], d1 = x[1] - lo[1], d2 = x[2] - lo[2];
    l[0] = hv[0] * d0 + hv[5] * d1 + hv[4] * d2;
    l[1] = hv[1] * d1 + hv[3] * d2;
    l[2] = hv[2] * d2;
  }
  /// Fractional → Cartesian (LAMMPS's Domain::lamda2x); x may alias l.
  void from_lamda(const double l[3], double x[3]) const {
    const double l0 = l[0], l1 = l[1], l2 = l[2];
    x[0] = prd(0) * l0 + xy * l1 + xz * l2 + lo[0];
    x[1] = prd(1) * l1 + yz * l2 + lo[1];
    x[2] = prd(2) * l2 + lo[2];
  }
  /// The point x moved by image (ix, iy, iz): its unwrapped position (LAMMPS's Domain::unmap).
  void unwrap(const double x[3], int ix, int iy, int iz, double u[3]) const {
    u[0] = x[0] + prd(0) * ix + xy * iy + xz * iz;
    u[1] = x[1] + prd(1) * iy + yz * iz;
    u[2] = x[2] + prd(2) * iz;
  }
  /// The displacement of a periodic image shifted by k box vectors along d (d = 0: a, 1: b, 2: c).
  void edge(int d, double k, double out[3]) const {
    out[0] = d == 0 ? k * prd(0) : d == 1 ? k * xy : k * xz;
    out[1] = d == 0 ? 0.0 : d == 1 ? k * prd(1) : k * yz;
    out[2] = d == 2 ? k * prd(2) : 0.0;
  }
  /// Lower and upper corners of the box's bounding box (LAMMPS's boxlo_bound, boxhi_bound).
  double bound_lo(int d) const {
    if (d == 0) return std::fmin(std::fmin(lo[0], lo[0] + xy), std::fmin(lo[0], lo[0] + xy) + xz);
    return d == 1 ? std::fmin(lo[1], lo[1] + yz) : lo[2];
  }
  double bound_hi(int d) const {
    if (d == 0) return std::fmax(std::fmax(hi[0], hi[0] + xy), std::fmax(hi[0], hi[0] + xy) + xz);
    return d == 1 ? std::fmax(hi[1], hi[1] + yz) : hi[2];
  }
  /// The bounding box of the box's eight corners, each from its fractional coordinates (LAMMPS's
  /// Domain::bbox of the unit cube: the bits of boxlo_bound/boxhi_bound up to the corners' rounding).
  void corner_bounds(double blo[3], double bhi[3]) const {
    for (int d = 0; d < 3; ++d) blo[d] = 1.0e20, bhi[d] = -1.0e20;
    for (int k = 0; k < 8; ++k) {
      const double l[3] = {(k & 1) ? 1.0 : 0.0, (k & 2) ? 1.0 : 0.0, (k & 4) ? 1.0 : 0.0};
      double x[3];
      from_lamda(l, x);
      for (int d = 0; d < 3; ++d) blo[d] = std::fmin(blo[d], x[d]), bhi[d] = std::fmax(bhi[d], x[d]);
    }
  }
  /// Shortest periodic image of a separation vector (LAMMPS's Domain::minimum_image: z, then y, then x,
  /// each bringing the tilt terms along).
  void minimum_image(double& dx, double& dy, double& dz) const {
    if (periodic(2)) {
      const double L = prd(2);
      while (std::fabs(dz) > 0.5 * L) {
        const double s = dz < 0.0 ? 1.0 : -1.0;
        dz += s * L, dy += s * yz, dx += s * xz;
      }
    }
    if (periodic(1)) {
      const double L = prd(1);
      while (std::fabs(dy) > 0.5 * L) {
        const double s = dy < 0.0 ? 1.0 : -1.0;
        dy += s * L, dx += s * xy;
      }
    }
    if (periodic(0)) {
      const double L = prd(0);
      while (std::fabs(dx) > 0.5 * L) dx += dx < 0.0 ? L : -L;
    }
  }
  /// Distance between the planes of constant fractional coordinate d one unit apart (LAMMPS's 1/length of
  /// h_inv's row d): a cutoff c spans c / plane_spacing(d) in lamda along d.
  double plane_spacing(int d) const {
    double hv[6];
    h_inv(hv);
    const double len = d == 0   ? std::sqrt(hv[0] * hv[0] + hv[5] * hv[5] + hv[4] * hv[4])
                       : d == 1 ? std::sqrt(hv[1] * hv[1] + hv[3] * hv[3])
                                : hv[2];
    return 1.0 / len;
  }
};

/// Why a triclinic box cannot be used, or "" (LAMMPS's set_initial_box checks).
inline std::string triclinic_box_problem(const Box& b) {
  if (!b.triclinic) return "";
  if (!(std::fabs(b.xy) < 1e20 && std::fabs(b.xz) < 1e20 && std::fabs(b.yz) < 1e20))
    return "the tilt factors xy xz yz must be finite numbers within ±1e20";
  if (b.skew_too_large() && !b.tilt_large)
    return "Triclinic box skew is too large: a tilt factor exceeds half the box length it is measured "
           "against "
           "(xy, xz: lx; yz: ly); `box tilt large` allows it, as in LAMMPS";
  return "";
}

/// Largest |coordinate| of a box face. Beyond it a box's lengths, volume and pressure lose all meaning (a
/// ±1e308 box has an infinite volume and a NaN pressure); LAMMPS stops such a box when it bins it.
inline constexpr double kMaxBoxCoordinate = 1e20;

/// True when [lo, hi) can be a box edge: finite, lo < hi, both within ±kMaxBoxCoordinate.
inline bool box_interval_ok(double lo, double hi) {
  return std::fabs(lo) < kMaxBoxCoordinate && std::fabs(hi) < kMaxBoxCoordinate && lo < hi;
}

/// The most box widths a point may lie outside a periodic box when a command remaps it with LAMMPS's
/// Domain::remap (one width per pass of its while loops): beyond it the loops would run ~forever (a box
/// 1e-9 Å wide, a point at 1e15 Å) and the image count would overflow.
inline constexpr double kMaxRemapWidths = 1e6;

/// How many box widths x lies outside [lo, hi) of width prd (0 inside; NaN stays NaN).
inline double widths_outside(double x, double lo, double hi, double prd) {
  return (x < lo ? lo - x : x >= hi ? x - hi : 0.0) / prd;
}

/// An image count that no longer fits an int means the motion diverged (a huge timestep or force): a failed
/// run, not a silently truncated image flag.
inline void check_image_jump(double image) {
  if (image > -2147483647.0 && image < 2147483647.0) return;
  char buf[160];
  std::snprintf(
      buf, sizeof buf,
      "an atom moved about %.3g box lengths: its motion is not finite (diverged); use a smaller timestep",
      image);
  throw RunError(buf);
}

/// Wraps coordinate x into [lo, hi) of a periodic direction, updating the image count (LAMMPS remap).
inline void wrap_periodic(double& x, int& image, double lo, double hi) {
  const double len = hi - lo;
  if (x < lo) {
    x += len;
    --image;
    if (x < lo) {  // far outside: keep the arithmetic exact for the common case above
      const double k = std::ceil((lo - x) / len);
      check_image_jump(image - k);
      x += k * len;
      image -= static_cast<int>(k);
    }
  }
  if (x >= hi) {
    x -= len;
    ++image;
    if (x >= hi) {
      const double k = std::floor((x - lo) / len);
      check_image_jump(image + k);
      x -= k * len;
      image += static_cast<int>(k);
    }
    if (x < lo) x = lo;  // round-off guard
  }
}

/// LAMMPS's Domain::remap of one point into the periodic directions of the box, image counts updated when
/// given (a triclinic box: through fractional coordinates and back, even for a point already inside). The
/// caller bounds how far outside the point may be (kMaxRemapWidths).
inline void remap_point(const Box& b, double x[3], int* image = nullptr) {
  double c[3] = {x[0], x[1], x[2]};
  if (b.triclinic) b.to_lamda(x, c);
  for (int d = 0; d < 3; ++d) {
    if (!b.periodic(d)) continue;
    const double lo = b.triclinic ? 0.0 : b.lo[d], hi = b.triclinic ? 1.0 : b.hi[d];
    const double period = b.triclinic ? 1.0 : b.prd(d);
    int im = 0;
    while (c[d] < lo) c[d] += period, --im;
    while (c[d] >= hi) c[d] -= period, ++im;
    c[d] = std::fmax(c[d], lo);
    if (image) image[d] += im;
  }
  if (b.triclinic)
    b.from_lamda(c, x);
  else
    x[0] = c[0], x[1] = c[1], x[2] = c[2];
}

/// How many box widths a point lies outside the box along d (fractional widths on a triclinic box).
inline double point_widths_outside(const Box& b, const double x[3], int d) {
  if (!b.triclinic) return widths_outside(x[d], b.lo[d], b.hi[d], b.prd(d));
  double l[3];
  b.to_lamda(x, l);
  return widths_outside(l[d], 0.0, 1.0, 1.0);
}

/// True when the point lies in the box, [lo, hi) along each direction (fractional on a triclinic box).
inline bool inside_box(const Box& b, const double x[3]) {
  double c[3] = {x[0], x[1], x[2]};
  if (b.triclinic) b.to_lamda(x, c);
  for (int d = 0; d < 3; ++d) {
    const double lo = b.triclinic ? 0.0 : b.lo[d], hi = b.triclinic ? 1.0 : b.hi[d];
    if (!(c[d] >= lo && c[d] < hi)) return false;
  }
  return true;
}

/// After wrap_periodic moved an atom from image `before` to `after` along d: with fix deform's `remap v`, an
/// atom of its group takes the box's rate of change along (LAMMPS's Domain::pbc adds h_rate when it wraps
/// an atom up through the lower face, subtracts it through the upper one).
inline void remap_velocity(const Box& b, int d, uint32_t mask, int before, int after, double& v) {
  if ((mask & b.vremap_group) && after != before) v -= (after - before) * b.h_rate[d];
}

}  // namespace wmd::md
