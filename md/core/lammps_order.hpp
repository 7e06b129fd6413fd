// One-rank LAMMPS's order of its atom arrays, which some commands' results follow: the ids `delete_atoms …
// compress yes` assigns, the atoms `delete_atoms porosity` and `set type/ratio` pick, which atom of a close
// pair `delete_atoms overlap` removes. Every atom carries its index in that order (Atoms::order); these
// functions keep it as LAMMPS's arrays change — creation appends, deletion moves the last atom into each
// hole, and the run and minimize set-ups sort the atoms spatially — so results equal one-rank LAMMPS's at any
// rank count and on either backend.
#pragma once
#include <cstdint>
#include <vector>

#include "md/core/box.hpp"
#include "md/core/comm.hpp"
#include "md/core/state.hpp"

namespace wmd::md {

/// `atom_modify sort Nfreq binsize` (LAMMPS's defaults: every 1000 steps, half the neighbour cutoff).
struct AtomSortSettings {
  int every = 1000;       // 0: never sort
  double binsize = 0.0;   // 0: half the neighbour cutoff
  int64_t next_step = 0;  // LAMMPS's nextsort
};

/// Every atom of every rank, in LAMMPS's order (index k holds the atom with order k).
struct OrderedAtoms {
  std::vector<int64_t> id;
  std::vector<int> type;
  std::vector<double> x, y, z;
  std::vector<uint32_t> mask;
  size_t size() const { return id.size(); }
};

/// Gathers all atoms to every rank in LAMMPS's order (collective; the orders must be 0..N−1).
OrderedAtoms gather_ordered(const Comm& comm, const Atoms& a);

/// Removes this rank's atoms with del[i] set (collective) and gives the survivors the order LAMMPS's
/// delete loop leaves them in (each hole takes the last atom). Returns the number deleted on all ranks.
int64_t delete_in_lammps_order(const Comm& comm, Atoms& a, const std::vector<char>& del);

/// `compress yes`: ids 1..N in LAMMPS's order (collective through nothing: orders are already 0..N−1).
void compress_ids(Atoms& a);

/// LAMMPS's spatial sort (Atom::sort) at a run or minimize set-up and at re-neighbouring steps from
/// sort.next_step on: a stable sort by bin of the periodic-wrapped positions (collective). cutneigh is the
/// neighbour cutoff (pair cutoff + skin) for the default bin size.
void sort_in_lammps_order(const Comm& comm, const Box& box, Atoms& a, AtomSortSettings& sort, int64_t step,
                          double cutneigh);

}  // namespace wmd::md
