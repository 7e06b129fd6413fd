// The vector bodies of the half-list EAM kernels (md/cluster/eam_half_kernels.hpp), written once with Google
// Highway and compiled for every SIMD target; each call runs the target base/simd.hpp chose (one dispatch per
// pass). Serial host execution space only for the scatters as whole rows; other spaces take the atomics.
#pragma once
#include "md/cluster/eam_half_kernels.hpp"

namespace wmd::md {

/// Density pass over hp's atoms into rho (approx: 1/√r² to fp32 accuracy, cluster.precision mixed/fp32).
void simd_density_half(const EamPairTables& t, const HalfPairs& hp, bool approx, double* rho);
/// Force pass over hp's atoms into f (with the spare double, see eam_force_half); returns the pair energy.
double simd_force_half(const EamPairTables& t, const HalfPairs& hp, bool approx, const double* fp, double* f);
/// F'(ρ̄) of atoms [0, nlocal) of a one-type table, Lanes at a time with the scalar loop's bits; returns the
/// embedding energy summed in atom order (0 without with_energy, which then writes F' only).
double simd_embed_one_type(const potentials::EamTables& t, int nlocal, const double* rho, double* fp,
                           bool with_energy);

}  // namespace wmd::md
