// Lattice-site mapping: each unit-cell column of a crystal (its basis atoms over every z layer) on one
// pw × ph patch of PEs, each site on a fixed PE of the patch. Atoms are placed by the site they sit at, not
// by their coordinates, so thermal motion does not change the assignment and the window radius b stays the
// perfect lattice's. The published wafer runs map their slabs so (3 × 4 PEs per bcc column of 6 cells,
// 4 × 6 per fcc one; docs/fabric.md, "The published benchmark").
#pragma once
#include <string>

#include "md/core/box.hpp"
#include "md/core/lattice.hpp"
#include "md/mesh/mapping.hpp"

namespace wmd::md::mesh {

/// The patch mapping chosen for a system: patch shape, whether cell columns along x run along grid rows
/// (transposed), and the window radius it needs.
struct PatchMapping {
  Mapping map;
  int patch_w = 0, patch_h = 0;
  bool transposed = false;
  int b = 0;
};

/// Maps the atoms onto patches of the lattice `lat` (cubic axes, basis coordinates 0 or ½, as sc, bcc and
/// fcc), trying every patch shape pw × ph = sites per column (and the transposed grid where x and y are not
/// periodic) that fits max_w × max_h, and keeping the one with the smallest b for pairs closer than `cut`.
/// Sites are found locally: blocks of about 4 cells in (x, y) each take the site grid's offset from their own
/// atoms, unwrapped from block to block, so a slab that has relaxed, bends or breathes still puts each atom
/// on its own site. An atom beyond the crystal's extent, more than 3/4 of a spacing from every site, or on a
/// site already taken, takes the nearest free site. Returns false, with the reason in `why`, when the lattice
/// is not of that kind, more than 1 % of the atoms need that, there are more atoms than sites, a periodic
/// length is not whole cells, or no patch shape fits.
bool map_lattice_patches(const Box& box, const Lattice& lat, const double* x, const double* y,
                         const double* z, int n, int max_w, int max_h, double cut, PatchMapping& out,
                         std::string* why);

}  // namespace wmd::md::mesh
