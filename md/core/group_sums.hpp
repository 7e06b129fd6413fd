// Global properties of a group of atoms (optionally only those inside a region), as LAMMPS's Group class
// computes them for the group functions of variable formulas: count, mass, centre of mass (unwrapped
// positions), its velocity, total force, bounds, radius of gyration, kinetic energy, angular momentum,
// torque, inertia tensor and angular velocity. Every sum goes through TermSum, so it is the same at any rank
// count in deterministic mode; each function is collective.
#pragma once
#include <cstdint>

#include "md/core/comm.hpp"
#include "md/core/region.hpp"
#include "md/core/state.hpp"

namespace wmd::md {

/// The atoms a group function looks at: this rank's atoms of group `bit`, inside `region` when not null.
struct GroupSelection {
  const State& s;
  const Comm& comm;
  uint32_t bit;
  const Region* region = nullptr;

  bool selected(size_t i) const {
    const Atoms& a = s.atoms;
    return (a.mask[i] & bit) && (!region || region->match(a.x[i], a.y[i], a.z[i]));
  }
};

int64_t group_count(const GroupSelection& g);
double group_mass(const GroupSelection& g);
/// Centre of mass of the unwrapped positions (0 for a massless group).
void group_xcm(const GroupSelection& g, double mass, double cm[3]);
/// Centre-of-mass velocity (0 for a massless group).
void group_vcm(const GroupSelection& g, double mass, double cm[3]);
/// Total force.
void group_fcm(const GroupSelection& g, double f[3]);
/// xmin xmax ymin ymax zmin zmax of the (wrapped) positions; ±1e20 for an empty group, as LAMMPS.
void group_bounds(const GroupSelection& g, double minmax[6]);
/// Radius of gyration about `cm` (0 for a massless group).
double group_gyration(const GroupSelection& g, double mass, const double cm[3]);
/// Kinetic energy (eV).
double group_ke(const GroupSelection& g);
/// Angular momentum about `cm`.
void group_angmom(const GroupSelection& g, const double cm[3], double l[3]);
/// Torque about `cm`.
void group_torque(const GroupSelection& g, const double cm[3], double t[3]);
/// Inertia tensor about `cm`.
void group_inertia(const GroupSelection& g, const double cm[3], double inertia[3][3]);
/// Angular velocity from angular momentum and inertia: I⁻¹L, or through the principal axes when I is
/// (nearly) singular (a line of atoms), as LAMMPS's Group::omega.
void group_omega(const double l[3], const double inertia[3][3], double w[3]);

}  // namespace wmd::md
