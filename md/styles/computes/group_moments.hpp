// A group's total mass and centre of mass from unwrapped positions (LAMMPS's group->mass and group->xcm), for
// the computes that measure about it (com, gyration).
#pragma once
#include "md/core/comm.hpp"
#include "md/core/state.hpp"
#include "md/core/unwrapped_position.hpp"

namespace wmd::md {

/// Σ m of the group's atoms, and cm = Σ m x_unwrapped / Σ m (0 for a massless group). Collective.
inline double group_centre_of_mass(const State& s, const Comm& comm, uint32_t group, double cm[3]) {
  const Atoms& a = s.atoms;
  TermSum mass(comm, 1), moment(comm, 3);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = s.mass[a.type[i]];
    mass.add(0, m);
    double u[3];
    unwrapped_position(s, i, u);  // LAMMPS's domain->unmap
    moment.add(0, u[0] * m);
    moment.add(1, u[1] * m);
    moment.add(2, u[2] * m);
  }
  const double total = mass.total()[0];
  const std::vector<double> mx = moment.total();
  for (int d = 0; d < 3; ++d) cm[d] = total > 0.0 ? mx[d] / total : 0.0;
  return total;
}

}  // namespace wmd::md
