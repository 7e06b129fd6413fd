#include "potentials/zbl_splice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "potentials/zbl_pair.hpp"

namespace wmd::potentials {

int atomic_number(const std::string& s) {
  static const char* const kSymbols[] = {
      "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",  "S",
      "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge",
      "As", "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd",
      "In", "Sn", "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd",
      "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",  "Re", "Os", "Ir", "Pt", "Au", "Hg",
      "Tl", "Pb", "Bi", "Po", "At", "Rn", "Fr", "Ra", "Ac", "Th", "Pa", "U"};
  for (int k = 0; k < 92; ++k) {
    if (s == kSymbols[k]) return k + 1;
  }
  return 0;
}

double zbl_energy(double zi, double zj, double r, double* deriv) {
  // Ziegler–Biersack–Littmark universal screening (The Stopping and Range of Ions in Solids, 1985), the
  // constants of pair_style zbl (zbl_pair.hpp), summed from the steepest term.
  const double a = kZblA0 / (std::pow(zi, kZblPow) + std::pow(zj, kZblPow));
  const double zze = zi * zj * kCoulombEvA;
  double screen = 0.0, dscreen = 0.0;
  for (int k = 3; k >= 0; --k) {
    const double e = kZblC[k] * std::exp(-kZblD[k] * r / a);
    screen += e;
    dscreen -= kZblD[k] / a * e;
  }
  if (deriv) *deriv = zze * (dscreen / r - screen / (r * r));
  return zze * screen / r;
}

double fermi_switch(double r, double r_f, double b_f) {
  return 1.0 / (1.0 + std::exp(-b_f * (r - r_f)));
}

namespace {

// Knot values of a spline with everything below r_min replaced by the straight-line continuation of the
// tabulated function from r_min (value and slope): EAM files are often unphysical at very short range
// (Fe_mm.eam.fs: φ ≈ 10¹² eV at 0.5 Å) and even a Fermi-suppressed share of that would swamp ZBL.
std::vector<double> knots_with_linear_core(const EamTables& t, const double* spline, double r_min) {
  std::vector<double> f(t.nr + 1, 0.0);
  int m;
  double p;
  locate_r(r_min, t.rdr, t.nr, m, p);
  const double* c = spline + static_cast<size_t>(m) * 7;
  const double v0 = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  const double d0 = (c[0] * p + c[1]) * p + c[2];
  for (int k = 1; k <= t.nr; ++k) {
    const double r = (k - 1) * t.dr;
    f[k] = r < r_min ? v0 + d0 * (r - r_min) : spline[static_cast<size_t>(k) * 7 + 6];
  }
  return f;
}

// Where the EAM functions stop being used: three switch widths inside r_f (S = 0.047 there).
double core_radius(const EamTables& t, double r_f, double b_f) {
  return std::max(r_f - 3.0 / b_f, 2.0 * t.dr);
}

}  // namespace

void splice_zbl(EamTables& t, int i, int j, double zi, double zj, double r_f, double b_f) {
  const int arr = t.z2r_array(i, j);
  double* spline = &t.z2r[static_cast<size_t>(arr) * (t.nr + 1) * 7];
  const std::vector<double> eam = knots_with_linear_core(t, spline, core_radius(t, r_f, b_f));
  std::vector<double> f(t.nr + 1, 0.0);
  const double zze = zi * zj * kCoulombEvA;
  for (int m = 1; m <= t.nr; ++m) {
    const double r = (m - 1) * t.dr;
    const double s = fermi_switch(r, r_f, b_f);
    // r·φ_ZBL → Zi Zj e² as r → 0 (the screening function sums to 1), so the knot at r = 0 is finite.
    const double rphi_zbl = r > 0.0 ? r * zbl_energy(zi, zj, r) : zze;
    f[m] = (1.0 - s) * rphi_zbl + s * eam[m];
  }
  build_spline(t.nr, t.dr, f.data(), spline);
}

void splice_density(EamTables& t, int array, double r_f, double b_f) {
  double* spline = &t.rhor[static_cast<size_t>(array) * (t.nr + 1) * 7];
  int m;
  double p;
  locate_r(r_f, t.rdr, t.nr, m, p);
  const double* c = spline + static_cast<size_t>(m) * 7;
  const double rho_f = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  const std::vector<double> rho = knots_with_linear_core(t, spline, core_radius(t, r_f, b_f));
  std::vector<double> f(t.nr + 1, 0.0);
  for (int k = 1; k <= t.nr; ++k) {
    const double s = fermi_switch((k - 1) * t.dr, r_f, b_f);
    f[k] = s * rho[k] + (1.0 - s) * rho_f;
  }
  build_spline(t.nr, t.dr, f.data(), spline);
}

bool write_eam_file(const EamTables& t, bool fs, const std::vector<int>& z,
                    const std::vector<std::string>& names, const std::string& path,
                    const std::string& comment) {
  std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!out) return false;
  FILE* o = out.get();
  const int n = t.ntypes;
  std::fprintf(o, "%s\n", comment.c_str());
  std::fprintf(o, "written by wafermd from its EAM spline tables (knot values)\n");
  std::fprintf(o, "%s\n", fs ? "Finnis-Sinclair (eam/fs) format" : "setfl (eam/alloy) format");
  std::fprintf(o, "%d", n);
  for (int k = 1; k <= n; ++k) std::fprintf(o, " %s", names[k].c_str());
  std::fprintf(o, "\n%d %.17g %d %.17g %.17g\n", t.nrho, t.drho, t.nr, t.dr, t.cutmax);
  auto column = [o](const double* knots, int count) {
    for (int m = 1; m <= count; ++m)
      std::fprintf(o, "%.17g%s", knots[static_cast<size_t>(m) * 7 + 6], m % 5 == 0 ? "\n" : " ");
    if (count % 5 != 0) std::fprintf(o, "\n");
  };
  for (int a = 1; a <= n; ++a) {
    std::fprintf(o, "%d %.17g 0.0 none\n", z[a], t.type_mass[a]);
    column(&t.frho[static_cast<size_t>(t.type2frho[a]) * (t.nrho + 1) * 7], t.nrho);
    if (fs) {
      // LAMMPS eam/fs: block a holds array [a][b], used as the density an atom of type a adds at type b.
      for (int b = 1; b <= n; ++b)
        column(&t.rhor[static_cast<size_t>(t.rho_array(a, b)) * (t.nr + 1) * 7], t.nr);
    } else {
      column(&t.rhor[static_cast<size_t>(t.rho_array(a, a)) * (t.nr + 1) * 7], t.nr);
    }
  }
  for (int a = 1; a <= n; ++a)
    for (int b = 1; b <= a; ++b)
      column(&t.z2r[static_cast<size_t>(t.z2r_array(a, b)) * (t.nr + 1) * 7], t.nr);
  return std::ferror(o) == 0;
}

}  // namespace wmd::potentials
