// The group's atoms in one-rank LAMMPS's order, known on every rank. Fixes that draw a random stream per atom
// (fix langevin, fix ttm) draw it in this order, as one-rank LAMMPS does, so that their forces do not depend
// on the rank count: slot k holds the k-th atom; slot_of_id maps an atom ID back to its slot.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "md/core/atoms.hpp"
#include "md/core/comm.hpp"

namespace wmd::md {

class OneRankOrder {
 public:
  /// Collects the group's atoms from every rank (collective); `selected(i)` says whether local atom i is in
  /// it.
  template <class Selected>
  void gather(const Atoms& a, const Comm& comm, Selected selected) {
    std::vector<Place> mine;
    for (size_t i = 0; i < a.size(); ++i)
      if (selected(i)) mine.push_back({a.order[i], a.id[i], a.type[i]});
    std::vector<Place> all = comm.allgather(mine);
    std::sort(all.begin(), all.end(), [](const Place& x, const Place& y) {
      return x.order != y.order ? x.order < y.order : x.id < y.id;
    });
    int64_t max_id = 0;
    for (const Place& g : all) max_id = std::max(max_id, g.id);
    slot_of_id_.assign(static_cast<size_t>(max_id) + 1, -1);
    order_.resize(all.size()), type_.resize(all.size());
    for (size_t k = 0; k < all.size(); ++k) {
      slot_of_id_[all[k].id] = static_cast<int32_t>(k);
      order_[k] = all[k].order, type_[k] = static_cast<int>(all[k].type);
    }
  }

  /// True when the gathered places still hold: the same atoms, order keys and types (collective: one
  /// two-value reduction).
  /// With `local` and `slots`, also lists the group's local atoms (ascending) and their slots as it goes,
  /// valid when it returns true: the caller's loop over the group then needs neither the mask nor the IDs.
  template <class Selected>
  bool current(const Atoms& a, const Comm& comm, Selected selected, std::vector<uint32_t>* local = nullptr,
               std::vector<int32_t>* slots = nullptr) const {
    int64_t v[2] = {0, 0};  // stale atoms, group atoms
    const int64_t nid = static_cast<int64_t>(slot_of_id_.size());
    if (local) local->clear(), slots->clear();
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(i)) continue;
      ++v[1];
      const int64_t k = a.id[i] < nid ? slot_of_id_[a.id[i]] : -1;
      if (k < 0 || order_[k] != a.order[i] || type_[k] != a.type[i]) ++v[0];
      if (local) local->push_back(static_cast<uint32_t>(i)), slots->push_back(static_cast<int32_t>(k));
    }
    comm.sum(v, 2);
    return v[0] == 0 && v[1] == static_cast<int64_t>(order_.size());
  }

  size_t size() const { return order_.size(); }
  /// The slot of atom `id` (which must be in the group).
  int32_t slot(int64_t id) const { return slot_of_id_[static_cast<size_t>(id)]; }
  int type(size_t slot) const { return type_[slot]; }

 private:
  struct Place {
    int64_t order, id, type;
  };
  std::vector<int32_t> slot_of_id_;  // atom ID → slot, -1 outside the group
  std::vector<int64_t> order_;       // slot → LAMMPS's order key
  std::vector<int> type_;            // slot → atom type
};

}  // namespace wmd::md
