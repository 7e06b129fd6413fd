// EAM spline tables built exactly as LAMMPS's pair_style eam, eam/alloy and eam/fs build them.
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"
#include "potentials/eam_file.hpp"
#include "potentials/zbl_pair.hpp"

namespace wmd::potentials {

/// none: no EAM at all (`pair_style zbl` alone): all-zero tables whose cut-off is the ZBL's.
enum class EamStyle { funcfl, setfl, finnis_sinclair, none };

/// Parses "eam", "eam/alloy" or "eam/fs"; returns false for anything else.
bool parse_eam_style(const std::string& name, EamStyle& style);

/// The pair potential: EAM spline tables and, under `pair_style hybrid/overlay … zbl` or `pair_style zbl`,
/// the ZBL term (zbl.active(); its outer cut-off never exceeds cutmax). Spline tables: seven coefficients per
/// knot, knots 1..n (index 0 unused), arrays stored one after another. Coefficients 3..6 give the value ((c3
/// p + c4) p + c5) p + c6, 0..2 the derivative (c0 p + c1) p + c2.
struct EamTables {
  int ntypes = 0;
  int nrho = 0, nr = 0;
  double drho = 0.0, dr = 0.0, rdrho = 0.0, rdr = 0.0;
  double rhomax = 0.0;
  double cutmax = 0.0;
  int nfrho = 0, nrhor = 0, nz2r = 0;
  std::vector<double> frho, rhor, z2r;  // [array][knot][7]
  std::vector<int> type2frho;           // [type], types 1..ntypes
  std::vector<int> type2rhor;           // [i*(ntypes+1)+j]: density at an atom of type j due to type i is
                                        // array type2rhor[i][j]... see rho_array()
  std::vector<int> type2z2r;            // [i*(ntypes+1)+j]
  std::vector<double> type_mass;        // [type] mass set by pair_coeff, 0 where none
  ZblTerm zbl;                          // the overlaid ZBL pair term (inactive for plain EAM)
  unsigned long long serial = 0;        // distinct for every build: backends keep packed copies by it

  /// Coefficients of knot m of F array a.
  const double* frho_knot(int a, int m) const { return &frho[(static_cast<size_t>(a) * (nrho + 1) + m) * 7]; }
  /// Coefficients of knot m of ρ array a.
  const double* rhor_knot(int a, int m) const { return &rhor[(static_cast<size_t>(a) * (nr + 1) + m) * 7]; }
  /// Coefficients of knot m of r·φ array a.
  const double* z2r_knot(int a, int m) const { return &z2r[(static_cast<size_t>(a) * (nr + 1) + m) * 7]; }
  /// Array giving the density that an atom of type `from` adds at an atom of type `at` (LAMMPS
  /// type2rhor[from][at]).
  int rho_array(int from, int at) const { return type2rhor[from * (ntypes + 1) + at]; }
  /// Array of r·φ for the type pair.
  int z2r_array(int i, int j) const { return type2z2r[i * (ntypes + 1) + j]; }

  /// F(ρ) for `type`, with LAMMPS's linear extension above rhomax.
  double embed(int type, double rho) const;
  /// F'(ρ) for `type`.
  double embed_deriv(int type, double rho) const;
  /// Density contributed at an atom of type `at` by a neighbour of type `from` at distance r (and
  /// derivative).
  double density(int from, int at, double r, double* deriv = nullptr) const;
  /// Pair energy φ(r) for the type pair (and dφ/dr).
  double pair(int i, int j, double r, double* deriv = nullptr) const;
};

/// Collects pair_coeff commands and builds the tables.
class EamBuilder {
 public:
  EamBuilder(EamStyle style, int ntypes);
  EamStyle style() const { return style_; }
  int ntypes() const { return ntypes_; }
  /// `pair_coeff I J file` for pair_style eam: types ilo..ihi × jlo..jhi, only I = J pairs take the file.
  void add_funcfl(int ilo, int ihi, int jlo, int jhi, const std::string& path, const SourcePos& pos);
  /// `pair_coeff * * file E1 ... En` for eam/alloy and eam/fs; "NULL" leaves a type unmapped.
  void set_elements(const std::string& path, const std::vector<std::string>& per_type, const SourcePos& pos);
  /// True when every type 1..ntypes has an element.
  bool complete() const;
  /// Builds the spline tables (LAMMPS file2array + array2spline).
  EamTables build() const;

 private:
  EamStyle style_;
  int ntypes_;
  std::vector<int> map_;  // [type] → file (funcfl) or element (setfl/fs), -1 unmapped
  std::vector<FuncflFile> funcfl_;
  SetflFile setfl_;
  bool have_setfl_ = false;
  SourcePos pos_;  // the last pair_coeff that read a file, for errors of the built tables
};

/// Knot m and fraction p for distance r in the r tables (LAMMPS's lookup: p = r·rdr + 1, clamped).
inline void locate_r(double r, double rdr, int nr, int& m, double& p) {
  p = r * rdr + 1.0;
  // Clamped before the conversion (the same knot for every p LAMMPS handles): a NaN or huge p takes the last
  // knot instead of an undefined conversion and an index outside the table.
  m = static_cast<int>(p < nr - 1 ? (p > 0.0 ? p : 0.0) : nr - 1);
  p -= m;
  p = p < 1.0 ? p : 1.0;
}

/// Knot m and fraction p for density rho in the F tables (m clamped to [1, nrho−1], no lower clamp on p).
inline void locate_rho(double rho, double rdrho, int nrho, int& m, double& p) {
  p = rho * rdrho + 1.0;
  // Clamped before the conversion, as in locate_r (a NaN density takes knot 1).
  m = static_cast<int>(p > 1.0 ? (p < nrho - 1 ? p : nrho - 1) : 1.0);
  p -= m;
  p = p < 1.0 ? p : 1.0;
}

/// LAMMPS's seven-coefficient cubic interpolation through n samples f[1..n] spaced delta (f[0] unused).
void build_spline(int n, double delta, const double* f, double* spline);

}  // namespace wmd::potentials
