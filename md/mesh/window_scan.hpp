// Window scans and their audit. At a rebuild each PE of the band receives its whole window (position, type,
// id) through the scan multicast and keeps as neighbour slots the atoms within cutoff + skin, each with the
// periodic image that brings it closest, in ascending global id; the per-step multicasts' requests are
// checked against their schedules' coverage once, here. The audit (a test switch) checks by brute force that
// every pair within the cutoff sits in the slots of both its PEs.
#pragma once
#include <cstdint>
#include <vector>

#include "md/core/box.hpp"
#include "md/core/state.hpp"
#include "md/mesh/band_transport.hpp"
#include "md/mesh/mapping.hpp"
#include "md/mesh/pe_memory.hpp"

namespace wmd::md::mesh {

/// What a window scan reads: the gathered atoms (map.atom_of indexes them), the window radius and the list
/// cut-off, and the precision of the positions the PEs compare.
struct ScanInput {
  const Box& box;
  const Mapping& map;
  const AllAtoms& g;
  int b = 1;
  double cutneigh = 0;
  bool fp64 = false;
};

/// Scans the windows of the band's PEs into `slots` (only those marked in `only`, band-indexed, when given;
/// the others keep their slots), and approves the new slots' requests on the positions and F' multicasts.
void scan_windows(const ScanInput& in, BandTransport& t, NeighbourSlots& slots,
                  const std::vector<char>* only = nullptr);

/// Entries missing from the band's slots: every pair within `cut` (current positions, nearest image) must
/// sit in the slots of both its PEs. One rank only (throws RunError otherwise).
int64_t audit_lists(const State& s, const BandPes& pes, const std::vector<int64_t>& pe_id,
                    const BandTransport& t, double cut);

}  // namespace wmd::md::mesh
