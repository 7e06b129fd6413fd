// An atom's unwrapped position (LAMMPS's Domain::unmap): its position moved by its image counts along the
// box's edge vectors, x + ix·a + iy·b + iz·c, summed in LAMMPS's order. On an orthogonal box the tilt terms
// add exact zeros, so the bits are the orthogonal x + ix·L.
#pragma once
#include <array>
#include <cstddef>

#include "md/core/state.hpp"

namespace wmd::md {

/// Atom i's unwrapped position.
inline void unwrapped_position(const State& s, size_t i, double u[3]) {
  const Atoms& a = s.atoms;
  const double x[3] = {a.x[i], a.y[i], a.z[i]};
  s.box.unwrap(x, a.ix[i], a.iy[i], a.iz[i], u);
}

/// Atom i's unwrapped position, as a value.
inline std::array<double, 3> unwrapped_position(const State& s, size_t i) {
  std::array<double, 3> u;
  unwrapped_position(s, i, u.data());
  return u;
}

}  // namespace wmd::md
