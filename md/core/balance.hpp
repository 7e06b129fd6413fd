// LAMMPS's `balance ... shift`: moves the cuts of the cluster decomposition so that each slab of sub-domains
// along a direction holds the same number of atoms (surfaces, voids, vacuum), from positions alone, so the
// result is the same on every run of the same input.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "md/core/atoms.hpp"
#include "md/core/balance_settings.hpp"
#include "md/core/box.hpp"
#include "md/core/comm.hpp"
#include "md/core/decomposition.hpp"

namespace wmd::md {

struct BalanceReport {
  double initial = 1.0, final = 1.0;  // imbalance factor: most atoms in a sub-domain over the mean
};

/// Imbalance factor of `dec` for these atoms (every rank's): the largest sub-domain count over the mean. On a
/// triclinic box (atoms in box coordinates) the sub-domains are slabs of fractional coordinates.
double imbalance_factor(const Comm& comm, const Decomposition& dec, const Box& box, const Atoms& atoms);

/// Balances along each direction in `b.dims` (in x, y, z order) whose grid has more than one sub-domain,
/// when the imbalance factor exceeds `b.thresh`: each cut is found by `b.niter` rounds of bisection on the
/// global count of atoms below it, aiming at equal counts per slab; balancing stops once the factor is at
/// most `b.stop`. Slabs stay at least `min_width` Å wide (the ghost exchange reaches face neighbours only).
/// Collective; every rank ends with the same cuts. The atoms are not moved (the caller migrates them). A
/// triclinic box (atoms in box coordinates) is cut in fractional coordinates, as LAMMPS's balance cuts it,
/// its slabs at least `min_width` Å between their faces.
BalanceReport balance_shift(const Comm& comm, Decomposition& dec, const Box& box, const Atoms& atoms,
                            const ShiftBalance& b, double min_width);

}  // namespace wmd::md
