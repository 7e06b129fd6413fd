// Crystal lattices (LAMMPS's `lattice` command: styles, orient, spacing, origin, a1/a2/a3, basis) and the
// lattice loop of create_atoms, with coordinates bit-identical to LAMMPS's.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "md/core/region.hpp"
#include "md/core/state.hpp"

namespace wmd::md {

/// Memory of one atom's arrays (md/core/atoms.hpp: 9 doubles, 2 int64, 5 int32) with their growth slack,
/// for the memory budget checked before atoms are created.
inline constexpr double kAtomBytes = 160.0;

struct Lattice {
  std::string style = "none";
  double scale = 1.0;                        // lattice constant, Å (metal units)
  std::vector<std::array<double, 3>> basis;  // fractional basis positions
  double origin[3] = {0.0, 0.0, 0.0};
  double spacing[3] = {1.0, 1.0, 1.0};                                   // xlattice, ylattice, zlattice, Å
  int orient[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};                  // orient x, y, z (rows)
  double a[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};  // a1, a2, a3 (rows)

  // The transforms LAMMPS derives from the settings above (setup_transform), in its arithmetic.
  double primitive[3][3] = {};  // a1, a2, a3 as columns
  double priminv[3][3] = {};
  double rotaterow[3][3] = {};  // unit orient vectors as rows
  double rotatecol[3][3] = {};  // ... as columns

  /// True unless style is none.
  bool defined() const { return style != "none"; }
  /// Lattice coordinates (unit cells) → box coordinates (Å), LAMMPS's lattice2box.
  void lattice2box(double& x, double& y, double& z) const;
  /// Box coordinates → lattice coordinates, LAMMPS's box2lattice.
  void box2lattice(double& x, double& y, double& z) const;
};

/// Fills the basis and the default primitive vectors of a named style (sc, bcc, fcc, hcp, diamond, custom,
/// and the 2d sq, sq2, hex); false for an unknown style.
bool lattice_style_basis(const std::string& style, Lattice& out);

/// Checks orient/a1-a3 (orthogonal, right-handed, non-collinear, non-degenerate) and derives the transforms
/// and, unless `user_spacing`, the spacings from the bounding box of the unit cell, as LAMMPS does. Returns
/// an empty string, or what is wrong in LAMMPS's words.
std::string finish_lattice(Lattice& l, bool user_spacing);

/// Builds an sc, bcc or fcc lattice with constant `a` in the default orientation; false for an unknown style.
bool make_lattice(const std::string& style, double a, Lattice& out);

/// Adds lattice atoms inside the box (and region, if given) with LAMMPS's create_atoms rules; basis_type[m]
/// gives the type of basis atom m. Ids count from first_id (0: the current maximum + 1) in the one-rank
/// generation order; with `keep`, only the atoms it accepts (this rank's) are added, every rank running the
/// same loop, so ids and coordinates do not depend on the rank count. New atoms take LAMMPS's one-rank
/// array positions from first_order on (0: after this rank's atoms, which is right on one rank). Returns
/// the number created on all ranks. A lattice region whose atoms would not fit the memory budget is an
/// InputError at `at`.
int64_t create_lattice_atoms(State& s, const Lattice& lat, const std::vector<int>& basis_type,
                             const Region* region, int64_t first_id = 0,
                             const std::function<bool(double, double, double)>& keep = nullptr,
                             int64_t first_order = -1, const SourcePos& at = SourcePos{});

}  // namespace wmd::md
