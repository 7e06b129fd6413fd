// What each PE of this rank's band keeps in its memory between steps (SoA over the band's PEs, index
// pe − pe0): its atom, the atom's reference position and the neighbour slots its last window scan chose.
// The atom's row of the run loop's State holds its position, velocity and force.
#pragma once
#include <cstdint>
#include <vector>

namespace wmd::md::mesh {

/// Neighbour slots of the band's PEs: PE q's are [off[q], off[q + 1]), in ascending global id.
struct NeighbourSlots {
  std::vector<int32_t> off;
  std::vector<int32_t> src;   // logical PE of each neighbour
  std::vector<int8_t> shift;  // periodic image of each neighbour: (sx+1) + 3(sy+1) + 9(sz+1)
  std::vector<int8_t> type;   // type of each neighbour (it arrived with the window scan)
  /// Slots of band PE q.
  int count(int q) const { return off[q + 1] - off[q]; }
};

/// The band's PEs.
struct BandPes {
  std::vector<int> local;     // this rank's atom index of the PE's atom, −1 for an empty PE
  std::vector<int> type;      // 0 for an empty PE
  std::vector<double> xhold;  // 3 per PE: the atom's reference position (its slots are built from these)
  NeighbourSlots slots;
};

/// The packed periodic image code of a slot.
inline int8_t pack_shift(int sx, int sy, int sz) {
  return static_cast<int8_t>((sx + 1) + 3 * (sy + 1) + 9 * (sz + 1));
}

}  // namespace wmd::md::mesh
