// Everything that defines the simulated system at one instant, independent of the backend.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/units.hpp"
#include "md/core/atoms.hpp"
#include "md/core/box.hpp"

namespace wmd::md {

struct State {
  Box box;
  Atoms atoms;
  int ntypes = 0;
  std::vector<double> mass;              // [type], 0 where not yet set
  std::vector<std::string> group_names;  // group bit k ↔ group_names[k]; bit 0 is "all"
  int64_t step = 0;
  double time = 0.0;              // accumulated simulated time, ps
  // LAMMPS's atimestep when it lags the step: after read_restart LAMMPS's `time` is (step − 0)·dt until a
  // run starts, and counts from 0 at that run's first step (its Integrate::init); −1 when `time` is current.
  int64_t time_lag_from = -1;
  double dt = units::default_dt;  // ps
  // Bumped by the commands that edit atoms or the box between runs (create_atoms, delete_atoms, replicate,
  // change_box, set x|y|z): a backend that keeps atoms in place between runs (the mesh's PEs) re-maps them.
  int64_t edits = 0;

  /// Bit mask of a group, or 0 if no such group.
  uint32_t group_bit(const std::string& name) const {
    for (size_t k = 0; k < group_names.size(); ++k) {
      if (group_names[k] == name) return 1u << k;
    }
    return 0;
  }
};

}  // namespace wmd::md
