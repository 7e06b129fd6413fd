// Region styles by LAMMPS name: each style (md/styles/regions/) parses its own arguments into a RegionShape
// and registers with WMD_REGION_STYLE next to its code; the `region` command (md/commands/region.cpp) parses
// the keywords every style shares (units, side, move, rotate) and keeps the Region handle.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "io/command.hpp"
#include "md/core/box.hpp"
#include "md/core/region.hpp"
#include "md/core/registry.hpp"

namespace wmd::md {

/// What a region style's factory sees: a cursor on its own arguments (exactly `fixed_args` of them, or
/// N and N region IDs for counted styles), the `units` scale and the state it may refer to.
struct RegionArgs {
  const std::string& id;
  io::ArgCursor& a;
  double scale[3];                               // xlattice, ylattice, zlattice with `units lattice`, else 1
  const Box& box;                                // for INF and EDGE
  bool interior;                                 // side in (LAMMPS's bboxflag needs it)
  const std::map<std::string, Region>& regions;  // union and intersect refer to existing regions
  RegionVariable eval;                           // value of an equal-style variable (v_name parameters)
};

struct RegionStyle {
  std::shared_ptr<RegionShape> (*make)(RegionArgs&);
  int fixed_args;  // arguments after the style before the keywords; -1: N, then N region IDs
};
using RegionRegistry = Registry<RegionStyle>;

/// A number, or `v_name` (an equal-style variable) where the style allows one.
struct RegionParam {
  double value = 0.0;
  std::string var;  // empty: constant
  double scale = 1.0;
  /// Re-evaluates a variable parameter (scaled like the constant).
  void update(const RegionVariable& eval) {
    if (!var.empty()) value = scale * eval(var);
  }
};

/// Reads a number scaled by `scale`, or a v_name when `variable_ok`.
RegionParam region_param(RegionArgs& r, const std::string& what, double scale, bool variable_ok);
/// Reads a bound along dimension d: a number (scaled), INF (±1e20, LAMMPS's BIG) or EDGE (the box face; on a
/// triclinic box the face of its bounding box when `tilted_bound`, as LAMMPS's block, cylinder and cone, or
/// the box's own lo/hi, as its prism).
double region_bound(RegionArgs& r, const std::string& what, int d, bool upper, bool tilted_bound = true);
/// The box face EDGE stands for (see region_bound).
double region_edge(const RegionArgs& r, int d, bool upper, bool tilted_bound = true);

}  // namespace wmd::md

/// Registers region style NAME with its factory and its count of fixed arguments.
#define WMD_REGION_STYLE(NAME, MAKE, NARGS) \
  WMD_REGISTER(::wmd::md::RegionRegistry, NAME, ::wmd::md::RegionStyle{MAKE, NARGS})
