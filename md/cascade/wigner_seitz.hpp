// Wigner–Seitz defect analysis: every atom belongs to its nearest site of a perfect reference lattice
// (minimum image in periodic directions, cell-list search); empty sites are vacancies, atoms beyond the first
// on a site are interstitials; defects closer than a cutoff are clustered.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "md/core/box.hpp"

namespace wmd::md {

struct WsResult {
  int64_t vacancies = 0;
  int64_t interstitials = 0;  // atoms in excess of one per site
  int64_t frenkel_pairs = 0;  // min(vacancies, interstitials): equal for an elemental crystal
  int64_t clusters = 0;       // connected groups of defects (vacant sites; multiply occupied sites), any size
  int64_t vacancy_clusters = 0;       // groups of ≥ 2 vacant sites
  int64_t interstitial_clusters = 0;  // groups of ≥ 2 multiply occupied sites
  int64_t largest_cluster = 0;        // defects in the largest group
  std::vector<int64_t> occupancy;     // per site
};

/// Sites of a perfect lattice filling the box: lo + (cell + basis)·a', with a' = L/n and n = round(L/spacing)
/// cells per direction (so a lattice expanded or compressed with the box is followed). Coordinates x,y,z.
std::vector<double> perfect_lattice_sites(const Box& box, const double spacing[3],
                                          const std::vector<std::array<double, 3>>& basis);

/// The index of the nearest of `sites` (xyz interleaved) to each of the positions `pos` (xyz interleaved):
/// minimum image in `box`'s periodic directions (along the edge vectors of a triclinic box), the lower index
/// on a tie.
std::vector<int> nearest_sites(const Box& box, const std::vector<double>& sites,
                               const std::vector<double>& pos);

/// Wigner–Seitz analysis of `n` positions (xyz interleaved) against `sites` (xyz interleaved) in `box`;
/// `cluster_cutoff` (Å) joins defects into clusters (choose it between the 2nd and 3rd neighbour shells).
WsResult wigner_seitz(const Box& box, const std::vector<double>& sites, const std::vector<double>& pos,
                      double cluster_cutoff);

/// Cluster cutoff between the 2nd and 3rd neighbour shells for a cubic lattice style (fcc, bcc, sc) of
/// constant a: the midpoint of the two shell radii.
double ws_cluster_cutoff(const std::string& style, double a);

}  // namespace wmd::md
