// EAM on a half neighbour list with Newton's third law, in LAMMPS's arithmetic order per pair:
// density pass → embedding pass → (F' to images) → force pass. Each pass is a Kokkos kernel over owned atoms
// reading "nlocal owned records followed by ghost images"; the pair loops run a vector of pairs per
// instruction on the SIMD target chosen at start (md/cluster/eam_half_simd.*, base/simd.hpp,
// docs/performance.md).
#pragma once
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "md/cluster/ghost_images.hpp"
#include "md/cluster/half_neighbor_list.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md {

/// Host memory the kernels read and write; unmanaged views wrap the backend's arrays without copying.
template <class T>
using HostView = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Initialises Kokkos once if the caller (a unit test) has not; the program initialises it in main.
void ensure_kokkos();

/// The spline coefficients the pair kernels need, repacked per type pair (i = list owner, j = neighbour) and
/// per knot so that one knot is one cache line (density) or two (force):
///   dens [pair][knot][8]  = value coefficients c3..c6 of ρ_{j→i}, then of ρ_{i→j}
///   force[pair][knot][16] = r·φ c0..c6, ρ_{i→j} c0..c2, ρ_{j→i} c0..c2, 3 zeros
///   force1[knot][8]       = r·φ c3..c6, ρ' c0..c2, 1 zero (one type only: one cache line per knot; the
///                           vector force pass takes (r·φ)' from the value coefficients)
/// pair = (type_i − 1)·ntypes + (type_j − 1). fp32 copies serve cluster.precision fp32/mixed.
struct EamPairTables {
  int ntypes = 0, nr = 0;
  double rdr = 0.0, cutmax = 0.0;
  unsigned long long serial = 0;  // the EamTables::serial packed
  potentials::ZblTerm zbl;        // the ZBL pair term (inactive for plain EAM)
  Kokkos::View<double*, Kokkos::HostSpace> dens, force, force1;
  Kokkos::View<float*, Kokkos::HostSpace> dens32, force32;
};

/// Packs `t` into per-pair, per-knot records (fp32 copies too when `single` is true).
EamPairTables pack_pair_tables(const potentials::EamTables& t, bool single);

/// Arithmetic of the pair kernels. fp64: exact (LAMMPS's digits). mixed: r and 1/r to fp32 accuracy (an
/// approximate 1/√r² refined by Newton steps; per-atom energies: fp32 pair math), sums in fp64.
/// Embedding, exchanges and integration stay fp64 in every mode.
enum class PairPrecision { fp64, mixed };

/// Parses the `cluster.precision` setting: fp64, or mixed (which `fp32` names too: no all-fp32 pair
/// arithmetic exists).
PairPrecision parse_pair_precision(const std::string& s);

/// List entries a per-atom in-cut-off mask covers (kMaskWords 64-bit words per owned atom).
constexpr int kMaskWords = 2;
constexpr int kMaskLen = 64 * kMaskWords;

/// What the pair kernels read: records (owned, then images) and the half list over owned atoms. For lists of
/// up to kMaskLen entries the density kernel marks each atom's neighbours inside the cut-off in cut_mask (bit
/// k: list entry offset[i] + k) and records how many in ncut (−1 where it did not); the force kernel of the
/// same step then takes only those, in list order. A bit per entry instead of a copy of the indices: 16
/// bytes per atom, where a copy was sized like the list (≈ 120 MB on the 801,792-atom input). The list
/// itself stays as built, so a step's arithmetic depends only on the list and the current positions, not on
/// earlier steps (a restart rebuilds the list and continues to the bit).
struct HalfPairs {
  HostView<const PosRec> rec;
  HostView<const int64_t> offset;
  HostView<const int> nbr;
  HostView<uint64_t> cut_mask;
  HostView<int> ncut;
  int nlocal = 0;
  /// Owned atoms [atom_begin, atom_end) the density and force kernels visit (half_pairs: all of them). A
  /// caller may run a pass in pieces, e.g. atoms whose lists hold ghosts while the others wait.
  int atom_begin = 0, atom_end = 0;
};

/// Wraps a ghost-image set and its half list for the kernels (no copy; resets list.ncut, sizes
/// list.cut_mask).
HalfPairs half_pairs(const GhostImages& g, HalfNeighborList& list);

/// Adds the pair terms of ρ̄ at every record (owned and images) into rho (zeroed by the caller); the caller
/// folds image densities onto owners.
void eam_density_half(const EamPairTables& t, const HalfPairs& hp, PairPrecision prec, HostView<double> rho);
/// F'(ρ̄) of owned atoms; returns the embedding energy and adds each atom's part to eatom (if not null).
/// With `with_energy` false the vector loop leaves F out and may return 0 (a step nobody reads the energy
/// of).
double eam_embed(const potentials::EamTables& t, const HalfPairs& hp, HostView<const double> rho,
                 HostView<double> fp, double* eatom, bool with_energy = true);
/// Pair forces into f (3 per record, zeroed by the caller, plus one spare double after the last record's,
/// which the vector loop reads and writes back unchanged); returns the pair energy, accumulates the virial
/// (xx yy zz xy xz yz; skipped when virial is null) and, if eatom is not null, half of each pair energy on
/// each partner record.
double eam_force_half(const EamPairTables& t, const HalfPairs& hp, PairPrecision prec,
                      HostView<const double> fp, HostView<double> f, double virial[6], double* eatom);
/// Adds Σ r ⊗ f over records [0, n) to virial (xx yy zz xy xz yz) — the pair virial when f holds the pair
/// forces before images are folded onto owners (LAMMPS's virial_fdotr_compute).
void add_virial_fdotr(const HalfPairs& hp, HostView<const double> f, int n, double virial[6]);

}  // namespace wmd::md
