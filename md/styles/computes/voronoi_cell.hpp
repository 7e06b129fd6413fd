// One Voronoi cell, built as voro++ (the library LAMMPS's compute voronoi/atom calls) builds it: a box around
// the atom (the container's walls), cut by one plane per neighbour — the bisector of the atom and the
// neighbour, or with radii the radical plane — in coordinates relative to the atom. A plane cuts only where a
// vertex lies beyond it by more than voro++'s tolerance; vertices within the tolerance stay where they are,
// so a plane through an existing vertex (the second neighbours of a perfect fcc lattice, through the
// rhombic dodecahedron's four-fold vertices) adds no face, as in voro++. Faces are kept as polygons of their
// vertices, counter-clockwise seen from outside.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace wmd::md {

class VoronoiCell {
 public:
  using Point = std::array<double, 3>;
  struct Face {
    int64_t
        neighbor;  // the neighbour's index (≥ 0), or a wall: −1 xlo, −2 xhi, −3 ylo, −4 yhi, −5 zlo, −6 zhi
    std::vector<Point> v;
  };

  /// voro++'s cutting tolerance (on 2·v·d − |d|², Å²).
  static constexpr double kTolerance = 1e-11;

  /// The box [lo, hi] (relative to the atom) as the initial cell, its six faces the walls.
  void init_box(const double lo[3], const double hi[3]);
  /// Cuts with the half-space 2·x·d ≤ rsq (rsq = |d|² for the bisector of a neighbour at d; |d|² + rᵢ² − rⱼ²
  /// for the radical plane); true when it removed a part of the cell.
  bool cut(const double d[3], double rsq, int64_t neighbor);
  /// The largest squared distance of a vertex from the atom (no plane farther than half of it can cut).
  double max_radius_sq() const { return rmax_sq_; }
  bool empty() const { return faces_.empty(); }

  const std::vector<Face>& faces() const { return faces_; }
  double volume() const;
  static double area(const Face& f);
  double surface_area() const;

 private:
  void update_radius();
  std::vector<Face> faces_;
  double rmax_sq_ = 0.0;
  // Scratch, kept between cuts so that a cut allocates nothing once warm.
  std::vector<Point> kept_, section_;
  std::vector<double> u_;  // each vertex's distance beyond the cutting plane
};

}  // namespace wmd::md
