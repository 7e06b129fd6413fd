// `neighbor` and `neigh_modify` settings (LAMMPS semantics).
#pragma once
#include "base/units.hpp"

namespace wmd::md {

struct NeighborSettings {
  double skin = units::default_skin;  // Å
  int every = 1;                      // consider a rebuild every this many steps
  // ... but not before this many steps since the last one: Debian's lmp 2021 default, 10 (a LAMMPS script
  // gets lmp's rebuild steps, wrapping and dangerous builds); native YAML inputs set 0 (io/yaml_input.cpp).
  int delay = 10;
  bool check = true;  // rebuild only if some atom moved more than skin/2
  bool once = false;  // build only at the start of a run
};

}  // namespace wmd::md
