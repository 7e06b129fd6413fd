// Periodic images ("ghost atoms") of the owned atoms within a cutoff of the box, any number of images deep,
// so boxes smaller than twice the cutoff work (an atom may meet several images of one neighbour).
#pragma once
#include <cstdint>
#include <vector>

#include "md/core/box.hpp"

namespace wmd::md {

/// Packed position record used by the force kernels: one 32-byte load per neighbour.
struct alignas(32) PosRec {
  double x, y, z;
  int type;
  int owner;  // key of the atom this record is or images: its owned index here, its global id in the cluster
              // decomposition (the half-list pair rule compares keys)
};

/// Owned atoms first (records 0..nlocal-1), then their images.
struct GhostImages {
  int nlocal = 0;
  std::vector<PosRec> rec;
  std::vector<int> shift;  // 3 per ghost: image offsets in box lengths

  int nall() const { return static_cast<int>(rec.size()); }
  /// Image offset (in box lengths) of ghost g (g ≥ nlocal).
  const int* shift_of(int g) const { return &shift[3 * (g - nlocal)]; }
};

/// Refuses (InputError, with the estimate and the limit) a ghost set-up whose images and neighbour pairs
/// would not fit the memory budget: `nlocal` atoms in a sub-domain of box/grid, images within `cut`. A
/// cutoff or skin far larger than the box (or a non-finite one) ends here instead of in an endless build.
void check_ghost_budget(const Box& box, const int grid[3], int64_t nlocal, double cut);

/// Builds records for owned positions and every image within `cut` of a periodic face.
void build_ghost_images(const Box& box, const double* x, const double* y, const double* z, const int* type,
                        int nlocal, double cut, GhostImages& out);
/// Refreshes all record positions from the owned positions (between rebuilds).
void update_ghost_positions(const Box& box, const double* x, const double* y, const double* z,
                            GhostImages& g);

}  // namespace wmd::md
