#include "md/core/lattice.hpp"

#include <cmath>

namespace wmd::md {

bool make_lattice(const std::string& style, double a, Lattice& out) {
  Lattice l;
  l.style = style;
  l.scale = a;
  if (style == "sc") {
    l.basis = {{0.0, 0.0, 0.0}};
  } else if (style == "bcc") {
    l.basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.5}};
  } else if (style == "fcc") {
    l.basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.5, 0.0, 0.5}, {0.0, 0.5, 0.5}};
  } else {
    return false;
  }
  // Default orientation: the unit cell's bounding box is a cube of edge `a`.
  l.spacing[0] = l.spacing[1] = l.spacing[2] = a;
  out = l;
  return true;
}

int64_t create_lattice_atoms(State& s, const Lattice& lat, const std::vector<int>& basis_type,
                             const Region* region, int64_t first_id,
                             const std::function<bool(double, double, double)>& keep) {
  // LAMMPS shifts the bounds of periodic directions so that an atom on both faces is created once.
  double sublo[3], subhi[3];
  for (int d = 0; d < 3; ++d) {
    sublo[d] = s.box.lo[d];
    subhi[d] = s.box.hi[d];
    if (s.box.periodic(d)) {
      const double eps = s.box.prd(d) * 1.0e-6;
      sublo[d] -= eps;
      subhi[d] -= 2.0 * eps;
    }
  }
  int lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = static_cast<int>(std::floor((sublo[d] / lat.scale) - lat.origin[d])) - 1;
    hi[d] = static_cast<int>(std::ceil((subhi[d] / lat.scale) - lat.origin[d])) + 1;
  }
  int64_t next_id = first_id > 0 ? first_id : s.atoms.max_id() + 1;
  int64_t created = 0;
  const int nbasis = static_cast<int>(lat.basis.size());
  for (int k = lo[2]; k <= hi[2]; ++k) {
    for (int j = lo[1]; j <= hi[1]; ++j) {
      for (int i = lo[0]; i <= hi[0]; ++i) {
        for (int m = 0; m < nbasis; ++m) {
          // lattice2box for the default orientation: identity rotation, then scale, then origin shift.
          double x[3] = {i + lat.basis[m][0], j + lat.basis[m][1], k + lat.basis[m][2]};
          const double x1 = 1.0 * x[0] + 0.0 * x[1] + 0.0 * x[2];
          const double y1 = 0.0 * x[0] + 1.0 * x[1] + 0.0 * x[2];
          const double z1 = 0.0 * x[0] + 0.0 * x[1] + 1.0 * x[2];
          x[0] = (x1 * lat.scale) + lat.spacing[0] * lat.origin[0];
          x[1] = (y1 * lat.scale) + lat.spacing[1] * lat.origin[1];
          x[2] = (z1 * lat.scale) + lat.spacing[2] * lat.origin[2];
          if (region && !region->match(x[0], x[1], x[2])) continue;
          if (x[0] < sublo[0] || x[0] >= subhi[0] || x[1] < sublo[1] || x[1] >= subhi[1] || x[2] < sublo[2] ||
              x[2] >= subhi[2]) {
            continue;
          }
          if (!keep || keep(x[0], x[1], x[2])) s.atoms.add(next_id, basis_type[m], x[0], x[1], x[2]);
          ++next_id;
          ++created;
        }
      }
    }
  }
  return created;
}

}  // namespace wmd::md
