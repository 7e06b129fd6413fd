// The pairs of atoms the local computes (property/local, pair/local) list: each pair within the pair
// potential's cutoff once over all ranks — each periodic image of a pair once — as LAMMPS lists them from its
// half neighbour list with newton_pair on. Which of the two atoms lists a pair ("atom 1"), and so the rank
// and the order of the rows, is LAMMPS's neighbour-list detail; here it is LAMMPS's own rule for pairs across
// ranks without newton (Neighbor's half/nsq): the smaller ID lists the pair when the IDs' sum is odd, the
// larger when it is even — each atom lists about half its pairs, so none is left without — and of an atom and
// its own image, the atom whose image lies in the positive direction (z, then y, then x).
#pragma once
#include <cstdint>

#include "md/styles/computes/all_neighbors.hpp"

namespace wmd::md {

/// True when the atom with `id` lists its pair with site p (the other atom of the pair lists it otherwise).
inline bool lists_pair(int64_t id, const AllNeighbors::Site& p) {
  if (id < p.id) return (id + p.id) % 2 == 1;
  if (id > p.id) return (id + p.id) % 2 == 0;
  const int* s = p.shift;
  return s[2] > 0 || (s[2] == 0 && (s[1] > 0 || (s[1] == 0 && s[0] > 0)));
}

}  // namespace wmd::md
