// Orthogonal simulation box with per-direction boundary styles (LAMMPS p, f, s, m).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>

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
  double h_rate[3] = {0.0, 0.0, 0.0};
  double h_ratelo[3] = {0.0, 0.0, 0.0};
  uint32_t vremap_group = 0;

  /// Edge length in direction d.
  double prd(int d) const { return hi[d] - lo[d]; }
  /// True when direction d is periodic.
  bool periodic(int d) const { return face[d][0] == Face::periodic; }
  /// Box volume in Å³.
  double volume() const { return prd(0) * prd(1) * prd(2); }
};

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

/// After wrap_periodic moved an atom from image `before` to `after` along d: with fix deform's `remap v`, an
/// atom of its group takes the box's rate of change along (LAMMPS's Domain::pbc adds h_rate when it wraps
/// an atom up through the lower face, subtracts it through the upper one).
inline void remap_velocity(const Box& b, int d, uint32_t mask, int before, int after, double& v) {
  if ((mask & b.vremap_group) && after != before) v -= (after - before) * b.h_rate[d];
}

}  // namespace wmd::md
