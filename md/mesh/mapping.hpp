// Locality-preserving 3D→2D mapping of atoms onto a W×H grid of PEs (one atom per PE) and the window radius b
// it needs: recursive coordinate bisection in (x, y), so z is folded onto an (x, y)-ordered grid (the wafer
// paper's "columns of atoms stacked into PEs"); grid columns follow x and grid rows follow y. The lattice
// mapping (mapping_lattice.cpp) bisects the atoms' lattice-plane indices instead, so thermal displacements
// do not reorder a crystal's atoms.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "md/core/box.hpp"

namespace wmd::md::mesh {

/// PE assignment of a mapped system. PE ids are logical, row-major (pe = row·W + column), as in fabric/.
struct Mapping {
  int width = 0, height = 0;
  bool wrap = false;             // folded torus (x or y periodic)
  std::vector<int32_t> atom_of;  // [pe] state index of the PE's atom, −1 for an empty PE
  std::vector<int32_t> pe_of;    // [atom] PE holding the atom

  /// Number of PEs.
  int size() const { return width * height; }
};

/// Grid dimensions for n atoms in `box`: W/H close to Lx/Ly, W ≤ max_w, H ≤ max_h, W·H ≥ n. Throws InputError
/// naming both numbers when n atoms cannot fit (more atoms than `pe_count` PEs, or the grid would not fit).
void choose_grid(int64_t n, const Box& box, int max_w, int max_h, int64_t pe_count, const std::string& wafer,
                 int& width, int& height);

/// Maps atoms (wrapped positions) onto a width×height grid by recursive bisection (x for columns, y for
/// rows).
Mapping map_atoms(const Box& box, const double* x, const double* y, const double* z, const int64_t* id, int n,
                  int width, int height);

/// Recursive bisection of per-atom keys (kx for columns, ky for rows, ties on kz, the other key, then id);
/// `wrap`: the grid is a folded torus. map_atoms bisects the coordinates themselves.
Mapping map_atoms_by_keys(bool wrap, const double* kx, const double* ky, const double* kz, const int64_t* id,
                          int n, int width, int height);

/// How atoms are placed on PEs (the `mesh.mapping` setting).
enum class MappingKind {
  bisection,  // recursive bisection of the coordinates themselves
  lattice,    // recursive bisection of the atoms' lattice-plane indices, where the crystal has planes
  sites,      // each unit-cell column on a patch of PEs, each atom on its site's PE (md/mesh/lattice_patches)
};

/// A crystal's planes along one axis, found in a configuration (find_lattice_planes): a coordinate's key is
/// the index of the nearest plane, so every atom of a plane has the same key however it is displaced (less
/// than half the spacing), and the key order is the coordinate order coarsened to planes.
struct AxisPlanes {
  std::vector<double> centre;  // sorted plane centres (mean coordinate of each plane); empty: no planes found
  double spacing = 0;          // the median distance between neighbouring planes
  double frame = 0;            // periodic axis: keys are taken in [frame, frame + period)
  double period = 0;           // periodic axis: the box length when the planes were found; 0: not periodic

  bool found() const { return !centre.empty(); }
  /// The plane index of coordinate u: 0..planes−1 (beyond the outermost plane of an open axis, the index
  /// continues at the spacing), or u itself when no planes were found.
  double key(double u) const;
  /// The swaps' key: the plane index while u lies within kSwapPlateau spacings of its plane (thermal
  /// motion reorders nothing), rising continuously between planes (an atom on its way to another plane is
  /// ordered by its coordinate, as a cascade's recoils must be); key() is its nearest integer.
  double swap_key(double u) const;
};

/// The planes along x, y and z.
struct LatticePlanes {
  AxisPlanes axis[3];
  bool found() const { return axis[0].found() || axis[1].found() || axis[2].found(); }
};

/// Finds each axis's lattice planes in a configuration: the sorted coordinates fall into planes where the
/// largest gaps between consecutive coordinates stand clearly apart from the rest (the largest ratio between
/// consecutive gaps, sorted, at least kPlaneSeparation, with at least 4 atoms per plane on average). A
/// crystal is recognised as long as its atoms' displacements stay well below half the plane spacing (thermal
/// motion, a cascade's few displaced atoms); an axis without planes (liquid, amorphous, too hot) keeps its
/// coordinates. Every rank finds the same planes from the same atoms, whatever their order.
LatticePlanes find_lattice_planes(const Box& box, const double* x, const double* y, const double* z, int n);

/// The planes of `planes` moved with the atoms: on each open axis the centres are refitted to the atoms that
/// lie between the outermost planes as α + β·centre (least squares over the atoms in the order given, so the
/// same order gives the same bits; a uniform strain and a drift of the crystal), so that the keys follow the
/// crystal. An open slab's planes are best found on its perfect lattice and followed from there: its surfaces
/// and edges relax and its planes ripple, so a hot slab's coordinates alone may not show them apart.
LatticePlanes follow_lattice_planes(const LatticePlanes& planes, const double* x, const double* y,
                                    const double* z, int n);

/// The half-width of a plane's plateau of swap keys, in plane spacings: wide, because a free slab's bending
/// moves atoms off the followed planes by more than thermal motion does (0.3 let a 110,592-atom Ta slab swap
/// 92,775 times and remap 21 times in 1,500 steps; 0.45: 1,029 swaps, no remap; docs/fabric.md).
constexpr double kSwapPlateau = 0.45;

/// How far apart the planes' gaps must stand from the gaps within planes (ratio) for planes to be found.
constexpr double kPlaneSeparation = 2.5;

/// Maps atoms onto a width×height grid by recursive bisection of their plane keys (planes.axis[d].key): a
/// thermalised crystal maps exactly as its perfect lattice (same keys, same ties: z plane, the other in-plane
/// index, id), so its window radius stays the perfect lattice's. Axes without planes bisect coordinates; with
/// no planes at all this is map_atoms.
Mapping map_atoms_lattice(const Box& box, const double* x, const double* y, const double* z,
                          const int64_t* id, int n, int width, int height, const LatticePlanes& planes);

/// The mapping of `kind` from the atoms alone (lattice: the planes found in these positions). For callers
/// that map one configuration (wafermd model); the backend keeps the planes it found and maps with them.
Mapping map_atoms(const Box& box, const double* x, const double* y, const double* z, const int64_t* id, int n,
                  int width, int height, MappingKind kind);

/// Throws InputError when a periodic box length is below 2·cutneigh: an atom could then meet two images of
/// one neighbour, which a one-slot-per-PE window cannot hold.
void check_single_image(const Box& box, double cutneigh);

/// Calls f(i, j) once for every pair i < j closer than `cut` (nearest periodic image; box lengths must be at
/// least 2·cut in periodic directions). Cell binning, O(n).
template <class F>
void for_each_pair(const Box& box, const double* x, const double* y, const double* z, int n, double cut, F f);

/// Chebyshev distance between two logical PEs (wrapped on the torus when m.wrap).
int pe_distance(const Mapping& m, int a, int b);

/// Smallest window radius b holding every pair closer than `cut` (the window-radius rule of the mapping).
int required_window(const Mapping& m, const Box& box, const double* x, const double* y, const double* z,
                    int n, double cut);

}  // namespace wmd::md::mesh

#include "md/mesh/mapping_pairs.hpp"
