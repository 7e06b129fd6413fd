// ZBL universal screened-Coulomb repulsion spliced into the EAM pair term with a Fermi switch, operating on
// the spline tables (EamTables::z2r) so every backend uses the same spliced tables; and a writer of tables as
// a setfl (eam/alloy) or eam/fs file that LAMMPS reads back to the same splines.
#pragma once
#include <string>
#include <vector>

#include "base/units.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::potentials {

/// e²/(4πε0) in eV·Å, LAMMPS metal units' qqr2e (pair zbl uses it).
inline constexpr double kCoulombEvA = units::qqr2e;
/// Default Fermi switch centre (Å) and steepness (1/Å): ZBL below ~r_f − 2/b_f, EAM above ~r_f + 2/b_f.
inline constexpr double kDefaultZblRf = 1.0;
inline constexpr double kDefaultZblBf = 10.0;

/// Atomic number of an element symbol (H..U), or 0 if unknown.
int atomic_number(const std::string& symbol);

/// ZBL universal pair energy φ(r) in eV for nuclear charges zi, zj (and dφ/dr through `deriv`).
double zbl_energy(double zi, double zj, double r, double* deriv = nullptr);

/// Fermi switch S(r) = 1/(1 + exp(−b_f (r − r_f))): 0 at short range (pure ZBL), 1 beyond (pure EAM).
double fermi_switch(double r, double r_f, double b_f);

/// Replaces the r·φ table of the type pair (i, j) by (1 − S)·r·φ_ZBL + S·r·φ_EAM at every knot (r·φ_EAM
/// continued as a straight line below r_f − 3/b_f, where EAM files are often unphysical) and rebuilds
/// its spline. The array may be shared with other type pairs of the same elements; splicing it once is
/// enough.
void splice_zbl(EamTables& t, int i, int j, double zi, double zj, double r_f, double b_f);

/// Freezes the density array `array` below the switch: ρ ← S·ρ + (1 − S)·ρ(r_f). Without it the embedding
/// energy of a close pair follows the EAM density to huge values (Fe_mm.eam.fs: ~10⁹ eV at 0.5 Å) and swamps
/// the ZBL wall; with it the short-range energy is ZBL plus a constant embedding term.
void splice_density(EamTables& t, int array, double r_f, double b_f);

/// Writes the tables as a setfl (fs = false) or Finnis–Sinclair file with one element per type: knot values
/// of F, ρ and r·φ at 17 significant digits, so LAMMPS rebuilds the same splines. z and element names per
/// type (index 1..ntypes); returns false if the file cannot be written.
bool write_eam_file(const EamTables& t, bool fs, const std::vector<int>& z,
                    const std::vector<std::string>& names, const std::string& path,
                    const std::string& comment);

}  // namespace wmd::potentials
