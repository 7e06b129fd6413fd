// LAMMPS's domain->pbc() and domain->reset_box(), which it applies at every re-neighbouring and in
// write_data: atoms wrapped into the periodic directions (image counts updated, fix deform's remap v applied)
// and shrink-wrapped faces fitted to the atoms.
#pragma once
#include "md/core/comm.hpp"
#include "md/core/state.hpp"

namespace wmd::md {

/// Wraps and fits as LAMMPS does (collective: the shrink-wrap bounds are taken over all ranks). A non-finite
/// coordinate is a RunError naming the atom. Returns true when a face moved (wrapping alone keeps every atom
/// where a backend placed it: the mesh keeps its PEs).
bool wrap_and_fit_box(State& s, const Comm& comm);

}  // namespace wmd::md
