// Locality-preserving 3D→2D mapping of atoms onto a W×H grid of PEs (one atom per PE) and the window radius b
// it needs: recursive coordinate bisection in (x, y), so z is folded onto an (x, y)-ordered grid (the wafer
// paper's "columns of atoms stacked into PEs"); grid columns follow x and grid rows follow y.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "md/core/box.hpp"

namespace wmd::md::mesh {

/// PE assignment of a mapped system. PE ids are logical, row-major (pe = row·W + column), as in fabric/.
struct Mapping {
  int width = 0, height = 0;
  bool wrap = false;             // folded torus (x or y periodic)
  std::vector<int32_t> atom_of;  // [pe] state index of the PE's atom, −1 for an empty PE
  std::vector<int32_t> pe_of;    // [atom] PE holding the atom

  /// Number of PEs.
  int size() const { return width * height; }
};

/// Grid dimensions for n atoms in `box`: W/H close to Lx/Ly, W ≤ max_w, H ≤ max_h, W·H ≥ n. Throws InputError
/// naming both numbers when n atoms cannot fit (more atoms than `pe_count` PEs, or the grid would not fit).
void choose_grid(int64_t n, const Box& box, int max_w, int max_h, int64_t pe_count, const std::string& wafer,
                 int& width, int& height);

/// Maps atoms (wrapped positions) onto a width×height grid by recursive bisection (x for columns, y for
/// rows).
Mapping map_atoms(const Box& box, const double* x, const double* y, const double* z, const int64_t* id, int n,
                  int width, int height);

/// Throws InputError when a periodic box length is below 2·cutneigh: an atom could then meet two images of
/// one neighbour, which a one-slot-per-PE window cannot hold.
void check_single_image(const Box& box, double cutneigh);

/// Calls f(i, j) once for every pair i < j closer than `cut` (nearest periodic image; box lengths must be at
/// least 2·cut in periodic directions). Cell binning, O(n).
template <class F>
void for_each_pair(const Box& box, const double* x, const double* y, const double* z, int n, double cut, F f);

/// Chebyshev distance between two logical PEs (wrapped on the torus when m.wrap).
int pe_distance(const Mapping& m, int a, int b);

/// Smallest window radius b holding every pair closer than `cut` (the window-radius rule of the mapping).
int required_window(const Mapping& m, const Box& box, const double* x, const double* y, const double* z,
                    int n, double cut);

}  // namespace wmd::md::mesh

#include "md/mesh/mapping_pairs.hpp"
