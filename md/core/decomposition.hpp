// The cluster backend's 3D Cartesian decomposition: the box split into grid[0]×grid[1]×grid[2] sub-domains,
// one per MPI rank (LAMMPS's processor grid): of equal size, or with the cuts `balance` moved (fractions of
// the box along each direction, the same on every rank).
#pragma once
#include <array>
#include <string>
#include <vector>

#include "md/core/box.hpp"

namespace wmd::md {

class Decomposition {
 public:
  /// One rank owning the whole box.
  Decomposition() = default;
  /// A grid whose product is the number of ranks; `rank` is this rank.
  Decomposition(const std::array<int, 3>& grid, int rank);

  /// The grid for `ranks` ranks that minimises the total sub-domain surface for this box shape (ties: the
  /// first in LAMMPS's search order, so LAMMPS picks the same grid), among those with fixed[d] sub-domains
  /// along each d where fixed[d] > 0 (LAMMPS's `processors`); the caller checks that one exists.
  static std::array<int, 3> best_grid(const Box& box, int ranks, const std::array<int, 3>& fixed = {0, 0, 0});
  /// Parses "AxBxC" (cluster.grid); false if malformed.
  static bool parse_grid(const std::string& text, std::array<int, 3>& grid);

  const std::array<int, 3>& grid() const { return grid_; }
  const std::array<int, 3>& coord() const { return coord_; }
  int ranks() const { return grid_[0] * grid_[1] * grid_[2]; }
  /// "AxBxC".
  std::string grid_text() const;
  /// Rank of the sub-domain at cell c (row-major, z fastest, as MPI_Cart_create).
  int rank_of(const std::array<int, 3>& c) const { return (c[0] * grid_[1] + c[1]) * grid_[2] + c[2]; }
  /// Boundary c (0..grid[d]) along d of the box's current extent: lo + L·cut_c with cut_c = c/grid[d] unless
  /// set_cuts moved it, exactly lo and hi at the ends.
  double bound(const Box& box, int d, int c) const;
  /// The cuts along d as fractions of the box (grid[d] + 1 values, 0 first, 1 last).
  const std::vector<double>& cuts(int d) const { return cut_[d]; }
  /// Moves the cuts along d (grid[d] + 1 increasing fractions from 0 to 1; LAMMPS's xsplit, ysplit, zsplit).
  /// Every rank must set the same values.
  void set_cuts(int d, const std::vector<double>& fractions);
  /// The cuts c·(1/p), c = 0..p (1 exactly at the end), of p equal slabs.
  static std::vector<double> uniform_cuts(int p);
  /// Cell along d whose [bound(c), bound(c+1)) holds x (clamped to the grid), by the same comparisons on
  /// every rank, so each point has exactly one owner.
  int cell_of(const Box& box, int d, double x) const;
  /// True when this rank's sub-domain holds the point (of a triclinic box: by its fractional coordinates).
  bool owns(const Box& box, double x, double y, double z) const;
  /// Neighbour rank along d on the lower (dir −1) or upper (+1) side; −1 past a non-periodic face.
  int neighbor(const Box& box, int d, int dir) const;
  /// Thinnest sub-domain along d.
  double min_width(const Box& box, int d) const;
  /// How many sub-domains next to cell c along d, on side dir (−1 below, +1 above), hold points closer than
  /// `cut` to c's face on that side (LAMMPS's CommBrick::updown, ghost exchange hops): 1 when c's neighbour
  /// is at least cut thick; never past a non-periodic face; round the box again when a periodic box is
  /// thinner than cut. A hair of slack (1e-12 of cut + L) counts one sub-domain more rather than one too few
  /// when the widths add up to cut within round-off.
  int reach(const Box& box, int d, int c, int dir, double cut) const;
  /// The most hops any sub-domain needs along d (LAMMPS's maxneed): the ghost exchange's swaps per side.
  int max_reach(const Box& box, int d, double cut) const;

 private:
  std::array<int, 3> grid_ = {1, 1, 1};
  std::array<int, 3> coord_ = {0, 0, 0};
  std::array<std::vector<double>, 3> cut_ = {std::vector<double>{0.0, 1.0}, std::vector<double>{0.0, 1.0},
                                             std::vector<double>{0.0, 1.0}};
};

}  // namespace wmd::md
