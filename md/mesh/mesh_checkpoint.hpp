// The mesh backend's checkpoint state, one named array per field (docs/output.md, "Backend state"): the PE
// assignment, window radius, each band PE's reference position, the rebuild trigger's state and every
// counter of the cycle account by name. Layout version 2; checkpoints of layout 1 (no version field: the
// counters as an 11-value positional array plus three short ones) are still read.
#pragma once
#include <cstdint>
#include <vector>

#include "md/force/backend.hpp"
#include "md/mesh/cycle_account.hpp"
#include "md/mesh/mapping.hpp"

namespace wmd::md::mesh {

constexpr int kMeshStateVersion = 2;

struct MeshCheckpoint {
  int width = 0, height = 0;
  bool wrap = false;                // folded torus
  std::vector<int64_t> pe_atom_id;  // [pe] global id of the PE's atom, 0 for an empty PE (every PE)
  int window_b = 1;
  int precision = 32;  // PE arithmetic: 32 or 64
  // Absent from a restart file's state (read_restart keeps only the assignment, `mapping_only`).
  int ago = 0;                   // steps since the last global rebuild
  std::vector<double> xhold;     // 3 per band PE: the atom's reference position
  std::vector<uint32_t> active;  // [pe] flagged at the last check (local trigger)
  bool local_trigger = true;     // the run chose the local trigger (when its settings allow one)
  MeshCounters counters;         // the cycle account's (audit counts are not kept)
  // The lattice mapping's planes (kept in restart files too); absent from older checkpoints: none.
  LatticePlanes planes;
  // mesh.mapping sites: the atoms are on their sites' PEs (false once a remap fell back to the bisection).
  // Absent from older checkpoints: false.
  bool sites = false;
  // read_restart: the atoms stay on the PEs they held in the box [box_lo, box_hi); the next set-up
  // rebuilds from there (the restart file's "wafermd_mapping_only" array).
  bool mapping_only = false;
  double box_lo[3] = {0, 0, 0}, box_hi[3] = {0, 0, 0};
  // The cycle timeline's samples (CycleTimeline::state); absent from older checkpoints: it starts over.
  std::vector<double> timeline;
};

/// The named arrays of `c` (layout version 2).
NamedArrays checkpoint_arrays(const MeshCheckpoint& c);

/// Reads `state` into `c`. Fields that older layouts lack keep c's values. Throws InputError when the
/// checkpoint's precision is not `precision`, RunError naming a missing or malformed field.
void read_checkpoint(const NamedArrays& state, int precision, MeshCheckpoint& c);

}  // namespace wmd::md::mesh
