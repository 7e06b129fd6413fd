// Mapping upkeep: which PE holds which atom as the atoms move. Each PE wraps its own atom (or reports it
// lost); odd-even swap rounds between neighbour PEs keep the mapping sorted, and so local; when an atom
// outruns its window anyway the atoms are remapped afresh (b grows if it must), and atoms that commands
// moved between runs are remapped too, each move priced as swap-schedule rounds. The upkeep reads the
// gathered copy of every atom and runs alike on every rank.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "fabric/fast_transport.hpp"
#include "md/core/atoms.hpp"
#include "md/core/box.hpp"
#include "md/mesh/band_transport.hpp"
#include "md/mesh/cycle_account.hpp"
#include "md/mesh/mapping.hpp"
#include "md/mesh/pe_memory.hpp"

namespace wmd::md::mesh {

/// Index of each id among `ids` (ids unique): a dense table when the ids are compact, else a sorted copy.
class IdIndex {
 public:
  explicit IdIndex(const std::vector<int64_t>& ids) {
    int64_t mx = 0;
    for (int64_t v : ids) mx = std::max(mx, v);
    if (mx <= 4 * static_cast<int64_t>(ids.size()) + 64) {
      dense_.assign(static_cast<size_t>(mx) + 1, -1);
      for (size_t k = 0; k < ids.size(); ++k) dense_[ids[k]] = static_cast<int32_t>(k);
    } else {
      sorted_.resize(ids.size());
      for (size_t k = 0; k < ids.size(); ++k) sorted_[k] = {ids[k], static_cast<int32_t>(k)};
      std::sort(sorted_.begin(), sorted_.end());
    }
  }
  /// Index of `id`, −1 when absent.
  int32_t find(int64_t id) const {
    if (!dense_.empty()) return id >= 0 && id < static_cast<int64_t>(dense_.size()) ? dense_[id] : -1;
    auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::pair<int64_t, int32_t>{id, -1});
    return it != sorted_.end() && it->first == id ? it->second : -1;
  }

 private:
  std::vector<int32_t> dense_;
  std::vector<std::pair<int64_t, int32_t>> sorted_;
};

/// Wraps atom i into the periodic box (its image count follows) or throws RunError when it left through a
/// fixed face, as its PE does when the atom's reference resets; a non-finite coordinate ends the run.
void wrap_or_lose(Atoms& a, const Box& box, int64_t step, int i);

/// Points map.atom_of/pe_of at the gathered atoms `g` from each PE's atom id (pe_id: 0 for an empty PE).
void link_gathered(Mapping& map, const std::vector<int64_t>& pe_id, const AllAtoms& g);

/// The band's PEs ↔ this rank's atoms `a`, and each PE's atom type, into pes.local and pes.type.
void index_band(const Atoms& a, const std::vector<int64_t>& pe_id, const BandTransport& t, BandPes& pes);

/// One odd-even transposition round through the neighbour-swap schedule (map.atom_of/pe_of index `g`),
/// ordering atoms by their keys along each axis (`planes`: lattice-plane indices where planes were found,
/// else coordinates); with `active` (per PE) only pairs with an active PE exchange, and `swapped` (per PE)
/// marks the PEs whose atom changed.
void swap_round(Mapping& map, const Box& box, const AllAtoms& g, const LatticePlanes& planes,
                fabric::FastTransport& swap, CycleAccount& account,
                const std::vector<uint32_t>* active = nullptr, std::vector<uint32_t>* swapped = nullptr);

/// The guard that no interaction is lost at a global rebuild: when some pair within `cutneigh` lies outside
/// window b, the atoms are remapped to `fresh_mapping()` (the same grid), charged as the swap rounds that
/// carry the farthest atom to its new PE [E: a lower bound for neighbour exchanges]. Returns true when b had
/// to grow (b is updated: the caller connects new transports).
bool remap_if_needed(Mapping& map, const Box& box, const AllAtoms& g, double cutneigh, int& b,
                     const std::function<Mapping()>& fresh_mapping, const fabric::FastTransport& swap,
                     CycleAccount& account);

/// follow_lattice_planes over the gathered atoms in PE order (the same bits on every rank count).
LatticePlanes follow_planes(const LatticePlanes& planes, const Mapping& map, const AllAtoms& g);

/// After commands edited the atoms between runs: the atoms that were on the wafer (old_pe_id on an
/// old_width × old_height grid) move to the new mapping's PEs (pe_id on map's grid), priced as the swap
/// rounds that carry the farthest one (atoms new to the system come from the host and are not charged).
void charge_edit_remap(const std::vector<int64_t>& old_pe_id, int old_width, int old_height,
                       const std::vector<int64_t>& pe_id, const Mapping& map,
                       const fabric::FastTransport& swap, CycleAccount& account);

}  // namespace wmd::md::mesh
