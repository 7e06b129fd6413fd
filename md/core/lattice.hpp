// Crystal lattices and create_atoms, with coordinates bit-identical to LAMMPS's.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "md/core/region.hpp"
#include "md/core/state.hpp"

namespace wmd::md {

struct Lattice {
  std::string style = "none";
  double scale = 1.0;                        // lattice constant, Å (metal units)
  std::vector<std::array<double, 3>> basis;  // fractional basis positions
  double origin[3] = {0.0, 0.0, 0.0};
  double spacing[3] = {1.0, 1.0, 1.0};  // xlattice, ylattice, zlattice, Å

  /// True unless style is none.
  bool defined() const { return style != "none"; }
};

/// Builds an sc, bcc or fcc lattice with constant `a`; returns false for an unknown style.
bool make_lattice(const std::string& style, double a, Lattice& out);

/// Adds lattice atoms inside the box (and region, if given) with LAMMPS's create_atoms rules; basis_type[m]
/// gives the type of basis atom m. Ids count from first_id (0: the current maximum + 1) in the one-rank
/// generation order; with `keep`, only the atoms it accepts (this rank's) are added, every rank running the
/// same loop, so ids and coordinates do not depend on the rank count. Returns the number created on all
/// ranks.
int64_t create_lattice_atoms(State& s, const Lattice& lat, const std::vector<int>& basis_type,
                             const Region* region, int64_t first_id = 0,
                             const std::function<bool(double, double, double)>& keep = nullptr);

}  // namespace wmd::md
