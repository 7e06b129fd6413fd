// LAMMPS's domain->pbc() and domain->reset_box(), which it applies at every re-neighbouring and in
// write_data: atoms wrapped into the periodic directions (image counts updated, fix deform's remap v applied)
// and shrink-wrapped faces fitted to the atoms.
#pragma once
#include <string>

#include "md/core/comm.hpp"
#include "md/core/state.hpp"

namespace wmd::md {

/// Wraps and fits as LAMMPS does (collective: the shrink-wrap bounds are taken over all ranks). A non-finite
/// coordinate is a RunError naming the atom. Returns true when a face moved (wrapping alone keeps every atom
/// where a backend placed it: the mesh keeps its PEs).
/// On a triclinic box the atoms go through their fractional coordinates and back, as LAMMPS's do.
bool wrap_and_fit_box(State& s, const Comm& comm);

/// Cartesian ↔ fractional coordinates of every owned atom, in place (LAMMPS's x2lamda(nlocal), lamda2x).
void atoms_to_lamda(const Box& b, Atoms& a);
void atoms_from_lamda(const Box& b, Atoms& a);

/// LAMMPS's pbc() on a triclinic box: atoms given in fractional coordinates wrapped into [0, 1) along the
/// periodic directions, image counts updated and fix deform's remap v applied with the tilt rates. A
/// non-finite coordinate is a RunError naming the atom.
void wrap_fractional(const Box& b, Atoms& a, int64_t step);

/// LAMMPS's reset_box on a triclinic box whose atoms are in fractional coordinates: each shrink-wrapped
/// direction's faces are set from the atoms' fractional extent (all ranks), taken to box coordinates along
/// that direction's edge alone, then the atoms are taken back to box coordinates with the old box and into
/// fractional coordinates of the new one, and wrapped again (LAMMPS: x2lamda can leave [0, 1) by round-off).
/// Returns true when a face moved (collective).
bool fit_triclinic_shrink(Box& b, Atoms& a, const Comm& comm, int64_t step);

/// After a triclinic box flipped (xy changed by m·lx, xz by n·lx, yz by p·ly; b is the flipped box):
/// LAMMPS's Domain::image_flip (every atom keeps its unwrapped position in the new basis), its remap of
/// each atom into the box and the round trip of the migration that follows through fractional
/// coordinates, term by term. An atom far outside the box is a RunError naming `who`.
void flip_images(const Box& b, Atoms& a, int m, int n, int p, const std::string& who);

}  // namespace wmd::md
