// The `velocity` command and the group temperature, reproducing LAMMPS's arithmetic and random streams.
#pragma once
#include <cstdint>
#include <functional>

#include "md/core/comm.hpp"
#include "md/core/state.hpp"

namespace wmd::md {

enum class VelocityLoop { all, local, geom };

struct VelocityCreate {
  double temperature = 0.0;
  int seed = 1;
  uint32_t group = 1u;
  bool gaussian = false;
  bool zero_momentum = true;
  bool zero_rotation = false;
  bool sum = false;
  VelocityLoop loop = VelocityLoop::all;
  // `velocity … temp ID`: the temperature the scaling divides by (collective); empty: the group's own
  // (dof 3N − 3), as LAMMPS's default compute.
  std::function<double()> temperature_of;
};

// Every function here is collective over `comm` (s.atoms holds this rank's atoms); sums are TermSums, so a
// deterministic Comm makes them independent of the rank count.

/// `velocity GROUP create T SEED ...`: random velocities scaled to T (LAMMPS Velocity::create). loop all: one
/// stream over global ids 1..N, each rank keeping its atoms' draws; loop local: seed + rank, as LAMMPS.
void velocity_create(State& s, const Comm& comm, const VelocityCreate& opt);
/// Kinetic temperature of a group (LAMMPS compute temp: dof = 3N − 3); dof returned through `dof`.
double group_temperature(const State& s, const Comm& comm, uint32_t group, double* dof = nullptr);
/// Removes the group's centre-of-mass velocity.
void zero_group_momentum(State& s, const Comm& comm, uint32_t group);
/// Removes the group's angular momentum about its centre of mass (unwrapped coordinates).
void zero_group_rotation(State& s, const Comm& comm, uint32_t group);
/// Multiplies the group's velocities so its temperature becomes t_new.
void scale_group_temperature(State& s, const Comm& comm, uint32_t group, double t_new);
/// Number of atoms in the group, over all ranks.
int64_t group_count(const State& s, const Comm& comm, uint32_t group);

}  // namespace wmd::md
