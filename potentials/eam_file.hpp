// Raw contents of EAM potential files (funcfl, setfl, Finnis–Sinclair) as LAMMPS reads them.
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"

namespace wmd::potentials {

/// One `pair_style eam` file: a single element, pair term stored as an effective charge Z(r).
struct FuncflFile {
  std::string path;
  double mass = 0.0;
  int nrho = 0, nr = 0;
  double drho = 0.0, dr = 0.0, cut = 0.0;
  std::vector<double> frho;  // F(ρ) at ρ = k·drho
  std::vector<double> zr;    // Z(r) at r = k·dr
  std::vector<double> rhor;  // ρ(r) at r = k·dr
};

/// One `eam/alloy` (setfl) or `eam/fs` file: N elements on one shared grid.
struct SetflFile {
  std::string path;
  bool finnis_sinclair = false;
  std::vector<std::string> elements;
  std::vector<double> mass;
  int nrho = 0, nr = 0;
  double drho = 0.0, dr = 0.0, cut = 0.0;
  std::vector<std::vector<double>> frho;  // [element] F(ρ)
  std::vector<std::vector<double>> rhor;  // setfl: [element]; fs: [i*N + j] = section i, array j
  std::vector<std::vector<double>> z2r;   // r·φ for i ≥ j, index i*(i+1)/2 + j
};

/// Reads a funcfl file; any malformation is an InputError naming the file and line.
FuncflFile read_funcfl(const std::string& path, const SourcePos& from);
/// Reads a setfl (finnis_sinclair = false) or Finnis–Sinclair file.
SetflFile read_setfl(const std::string& path, bool finnis_sinclair, const SourcePos& from);

}  // namespace wmd::potentials
