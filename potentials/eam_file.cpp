#include "potentials/eam_file.hpp"

#include <cmath>

#include "potentials/text_reader.hpp"

namespace wmd::potentials {
namespace {

// The grid line `Nrho drho Nr dr cut`, shared by all three formats.
struct Grid {
  int nrho, nr;
  double drho, dr, cut;
};

Grid read_grid(TextReader& in) {
  const auto t = in.next_line_tokens("the grid line 'Nrho drho Nr dr cutoff'");
  if (t.size() < 5) in.fail("expected 'Nrho drho Nr dr cutoff' (5 values), got " + std::to_string(t.size()));
  Grid g{in.to_int(t[0], "Nrho"), in.to_int(t[2], "Nr"), in.to_double(t[1], "drho"), in.to_double(t[3], "dr"),
         in.to_double(t[4], "cutoff")};
  // The spline needs five knots; non-positive spacings would divide by zero in the table lookups.
  if (g.nrho < 5) in.fail("Nrho must be at least 5, got " + t[0]);
  if (g.nr < 5) in.fail("Nr must be at least 5, got " + t[2]);
  if (!(g.drho > 0.0)) in.fail("drho must be positive, got " + t[1]);
  if (!(g.dr > 0.0)) in.fail("dr must be positive, got " + t[3]);
  if (!(g.cut > 0.0)) in.fail("cutoff must be positive, got " + t[4]);
  // The tables span (N-1)·spacing and are looked up at r/dr and rho/drho: those must be finite, and the knot
  // of the cutoff must be a table index (an int), or the look-ups would overflow.
  if (!std::isfinite((g.nrho - 1) * g.drho) || !std::isfinite(1.0 / g.drho))
    in.fail("the density table (Nrho - 1)·drho = " + t[0] + "·" + t[1] + " is not a finite range");
  if (!std::isfinite((g.nr - 1) * g.dr) || !(g.cut / g.dr < 1e9))
    in.fail("the distance table is out of range: Nr = " + t[2] + ", dr = " + t[3] + ", cutoff = " + t[4] +
            " (cutoff/dr must be below 1e9)");
  return g;
}

// The per-element line `Z mass a0 lattice`: only the mass is used, as in LAMMPS.
double read_mass(TextReader& in, const std::string& element) {
  const auto t = in.next_line_tokens("the line 'Z mass a0 lattice' of element " + element);
  if (t.size() < 2) in.fail("expected 'Z mass a0 lattice' for element " + element);
  in.to_double(t[0], "atomic number Z");
  const double mass = in.to_double(t[1], "mass");
  if (!(mass > 0.0)) in.fail("mass of element " + element + " must be positive, got " + t[1]);
  return mass;
}

}  // namespace

FuncflFile read_funcfl(const std::string& path, const SourcePos& from) {
  TextReader in(path, from);
  FuncflFile f;
  f.path = path;
  in.next_line_tokens("a comment line");
  f.mass = read_mass(in, "of the funcfl file");
  const Grid g = read_grid(in);
  f.nrho = g.nrho, f.nr = g.nr, f.drho = g.drho, f.dr = g.dr, f.cut = g.cut;
  f.frho = in.next_values(f.nrho, "F(rho)");
  f.zr = in.next_values(f.nr, "Z(r)");
  f.rhor = in.next_values(f.nr, "rho(r)");
  return f;
}

SetflFile read_setfl(const std::string& path, bool finnis_sinclair, const SourcePos& from) {
  TextReader in(path, from);
  SetflFile f;
  f.path = path;
  f.finnis_sinclair = finnis_sinclair;
  for (int i = 0; i < 3; ++i) in.next_line_tokens("three comment lines");
  const auto head = in.next_line_tokens("the element line 'N El1 ... ElN'");
  if (head.empty()) in.fail("expected the element line 'N El1 ... ElN', got an empty line");
  const int n = in.to_int(head[0], "the number of elements");
  if (n < 1) in.fail("the number of elements must be at least 1, got " + head[0]);
  if (static_cast<int>(head.size()) != n + 1) {
    in.fail("expected " + std::to_string(n) + " element names after the count, got " +
            std::to_string(head.size() - 1));
  }
  f.elements.assign(head.begin() + 1, head.end());
  const Grid g = read_grid(in);
  f.nrho = g.nrho, f.nr = g.nr, f.drho = g.drho, f.dr = g.dr, f.cut = g.cut;
  for (int i = 0; i < n; ++i) {
    const std::string& el = f.elements[i];
    f.mass.push_back(read_mass(in, el));
    f.frho.push_back(in.next_values(f.nrho, "F(rho) of element " + el));
    if (finnis_sinclair) {
      for (int j = 0; j < n; ++j) {
        f.rhor.push_back(in.next_values(f.nr, "rho(r) of pair " + el + "-" + f.elements[j]));
      }
    } else {
      f.rhor.push_back(in.next_values(f.nr, "rho(r) of element " + el));
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      f.z2r.push_back(in.next_values(f.nr, "r*phi(r) of pair " + f.elements[i] + "-" + f.elements[j]));
    }
  }
  return f;
}

}  // namespace wmd::potentials
