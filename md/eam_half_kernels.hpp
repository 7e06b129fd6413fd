// EAM on a half neighbour list with Newton's third law, in LAMMPS's arithmetic order:
// density pass → embedding pass → (F' to images) → force pass. Plain loops over packed arrays.
#pragma once
#include "md/ghost_images.hpp"
#include "md/half_neighbor_list.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md {

/// ρ̄ at every record (owned and images); caller folds image densities back onto owners.
void eam_density_half(const potentials::EamTables& t, const GhostImages& g, const HalfNeighborList& list,
                      double* rho);
/// F'(ρ̄) of owned atoms; returns the embedding energy and adds each atom's part to eatom (if not null).
double eam_embed(const potentials::EamTables& t, const GhostImages& g, const double* rho, double* fp,
                 double* eatom);
/// Pair forces into f (3 per record); returns the pair energy, accumulates the virial (xx yy zz xy xz yz)
/// and, if eatom is not null, half of each pair energy on each partner record.
double eam_force_half(const potentials::EamTables& t, const GhostImages& g, const HalfNeighborList& list,
                      const double* fp, double* f, double virial[6], double* eatom);

}  // namespace wmd::md
