// Verlet half neighbour list built by cell binning over owned atoms and their images: each interacting pair
// (including an atom and its own image) appears exactly once, chosen by integer ids, never by coordinates.
#pragma once
#include <cstdint>
#include <vector>

#include "md/cluster/ghost_images.hpp"

namespace wmd::md {

struct HalfNeighborList {
  std::vector<int64_t> offset;     // neighbours of owned atom i: nbr[offset[i] .. offset[i+1])
  std::vector<int> nbr;            // record indices (owned or ghost)
  std::vector<int> ncut;           // per owned atom: how many in-cut-off neighbours cut_mask marks, or −1
  std::vector<uint64_t> cut_mask;  // this step's in-cut-off list entries, a bit each (EAM kernels)

  /// Number of pairs.
  int64_t size() const { return static_cast<int64_t>(nbr.size()); }
};

/// Builds the list of all pairs closer than `cut` (strictly), binning with cells at least `cut` wide.
void build_half_list(const GhostImages& g, double cut, HalfNeighborList& out);

}  // namespace wmd::md
