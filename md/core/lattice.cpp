#include "md/core/lattice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/memory_budget.hpp"

namespace wmd::md {

void Lattice::lattice2box(double& x, double& y, double& z) const {
  // LAMMPS's order of operations: primitive vectors, scale, rotation, then the origin shift.
  double x1 = primitive[0][0] * x + primitive[0][1] * y + primitive[0][2] * z;
  double y1 = primitive[1][0] * x + primitive[1][1] * y + primitive[1][2] * z;
  double z1 = primitive[2][0] * x + primitive[2][1] * y + primitive[2][2] * z;
  x1 *= scale;
  y1 *= scale;
  z1 *= scale;
  const double xn = rotaterow[0][0] * x1 + rotaterow[0][1] * y1 + rotaterow[0][2] * z1;
  const double yn = rotaterow[1][0] * x1 + rotaterow[1][1] * y1 + rotaterow[1][2] * z1;
  const double zn = rotaterow[2][0] * x1 + rotaterow[2][1] * y1 + rotaterow[2][2] * z1;
  x = xn + spacing[0] * origin[0];
  y = yn + spacing[1] * origin[1];
  z = zn + spacing[2] * origin[2];
}

void Lattice::box2lattice(double& x, double& y, double& z) const {
  x -= spacing[0] * origin[0];
  y -= spacing[1] * origin[1];
  z -= spacing[2] * origin[2];
  double x1 = rotatecol[0][0] * x + rotatecol[0][1] * y + rotatecol[0][2] * z;
  double y1 = rotatecol[1][0] * x + rotatecol[1][1] * y + rotatecol[1][2] * z;
  double z1 = rotatecol[2][0] * x + rotatecol[2][1] * y + rotatecol[2][2] * z;
  x1 /= scale;
  y1 /= scale;
  z1 /= scale;
  x = priminv[0][0] * x1 + priminv[0][1] * y1 + priminv[0][2] * z1;
  y = priminv[1][0] * x1 + priminv[1][1] * y1 + priminv[1][2] * z1;
  z = priminv[2][0] * x1 + priminv[2][1] * y1 + priminv[2][2] * z1;
}

bool lattice_style_basis(const std::string& style, Lattice& l) {
  l.style = style;
  l.basis.clear();
  auto add = [&l](double x, double y, double z) { l.basis.push_back({x, y, z}); };
  if (style == "sc" || style == "sq") {
    add(0.0, 0.0, 0.0);
  } else if (style == "bcc") {
    add(0.0, 0.0, 0.0), add(0.5, 0.5, 0.5);
  } else if (style == "fcc") {
    add(0.0, 0.0, 0.0), add(0.5, 0.5, 0.0), add(0.5, 0.0, 0.5), add(0.0, 0.5, 0.5);
  } else if (style == "hcp") {
    add(0.0, 0.0, 0.0), add(0.5, 0.5, 0.0), add(0.5, 5.0 / 6.0, 0.5), add(0.0, 1.0 / 3.0, 0.5);
  } else if (style == "sq2" || style == "hex") {
    add(0.0, 0.0, 0.0), add(0.5, 0.5, 0.0);
  } else if (style == "diamond") {
    add(0.0, 0.0, 0.0), add(0.0, 0.5, 0.5), add(0.5, 0.0, 0.5), add(0.5, 0.5, 0.0);
    add(0.25, 0.25, 0.25), add(0.25, 0.75, 0.75), add(0.75, 0.25, 0.75), add(0.75, 0.75, 0.25);
  } else if (style != "custom") {
    return false;
  }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) l.a[r][c] = r == c ? 1.0 : 0.0;
  if (style == "hex") l.a[1][1] = std::sqrt(3.0);
  if (style == "hcp") l.a[1][1] = std::sqrt(3.0), l.a[2][2] = std::sqrt(8.0 / 3.0);
  return true;
}

namespace {

double dot3(const double* u, const double* v) {
  return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}
void cross3(const double* u, const double* v, double* w) {
  w[0] = u[1] * v[2] - u[2] * v[1];
  w[1] = u[2] * v[0] - u[0] * v[2];
  w[2] = u[0] * v[1] - u[1] * v[0];
}

}  // namespace

std::string finish_lattice(Lattice& l, bool user_spacing) {
  const int(&o)[3][3] = l.orient;
  auto idot = [&o](int p, int q) { return o[p][0] * o[q][0] + o[p][1] * o[q][1] + o[p][2] * o[q][2]; };
  if (idot(0, 1) || idot(1, 2) || idot(0, 2)) return "lattice orient vectors are not orthogonal";
  const int xy0 = o[0][1] * o[1][2] - o[0][2] * o[1][1];
  const int xy1 = o[0][2] * o[1][0] - o[0][0] * o[1][2];
  const int xy2 = o[0][0] * o[1][1] - o[0][1] * o[1][0];
  if (xy0 * o[2][0] + xy1 * o[2][1] + xy2 * o[2][2] <= 0)
    return "lattice orient vectors are not right-handed";
  double v[3];
  cross3(l.a[0], l.a[1], v);
  bool collinear = dot3(v, v) == 0.0;
  cross3(l.a[1], l.a[2], v);
  collinear = collinear || dot3(v, v) == 0.0;
  cross3(l.a[0], l.a[2], v);
  collinear = collinear || dot3(v, v) == 0.0;
  if (collinear) return "lattice primitive vectors are collinear";

  // primitive = a1, a2, a3 as columns; its inverse by cofactors over the determinant (LAMMPS's formula).
  double(&p)[3][3] = l.primitive;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) p[r][c] = l.a[c][r];
  const double det = p[0][0] * p[1][1] * p[2][2] + p[0][1] * p[1][2] * p[2][0] + p[0][2] * p[1][0] * p[2][1] -
                     p[0][0] * p[1][2] * p[2][1] - p[0][1] * p[1][0] * p[2][2] - p[0][2] * p[1][1] * p[2][0];
  if (det == 0.0) return "degenerate lattice primitive vectors";
  double(&q)[3][3] = l.priminv;
  q[0][0] = (p[1][1] * p[2][2] - p[1][2] * p[2][1]) / det;
  q[1][0] = (p[1][2] * p[2][0] - p[1][0] * p[2][2]) / det;
  q[2][0] = (p[1][0] * p[2][1] - p[1][1] * p[2][0]) / det;
  q[0][1] = (p[0][2] * p[2][1] - p[0][1] * p[2][2]) / det;
  q[1][1] = (p[0][0] * p[2][2] - p[0][2] * p[2][0]) / det;
  q[2][1] = (p[0][1] * p[2][0] - p[0][0] * p[2][1]) / det;
  q[0][2] = (p[0][1] * p[1][2] - p[0][2] * p[1][1]) / det;
  q[1][2] = (p[0][2] * p[1][0] - p[0][0] * p[1][2]) / det;
  q[2][2] = (p[0][0] * p[1][1] - p[0][1] * p[1][0]) / det;
  for (int r = 0; r < 3; ++r) {
    const int lensq = o[r][0] * o[r][0] + o[r][1] * o[r][1] + o[r][2] * o[r][2];
    const double length = std::sqrt(static_cast<double>(lensq));
    if (length == 0.0) return "zero-length lattice orient vector";
    for (int c = 0; c < 3; ++c) l.rotaterow[r][c] = o[r][c] / length;
  }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) l.rotatecol[r][c] = l.rotaterow[c][r];

  if (!user_spacing) {
    // The spacings are the extent of the unit cell's eight corners in box space, with the origin shift
    // switched off (spacing 0) while they are measured.
    l.spacing[0] = l.spacing[1] = l.spacing[2] = 0.0;
    double lo[3] = {1.0e30, 1.0e30, 1.0e30}, hi[3] = {-1.0e30, -1.0e30, -1.0e30};
    for (int k = 0; k < 8; ++k) {
      double x = (k & 1) ? 1.0 : 0.0, y = (k & 2) ? 1.0 : 0.0, z = (k & 4) ? 1.0 : 0.0;
      l.lattice2box(x, y, z);
      const double c[3] = {x, y, z};
      for (int d = 0; d < 3; ++d) lo[d] = std::min(c[d], lo[d]), hi[d] = std::max(c[d], hi[d]);
    }
    for (int d = 0; d < 3; ++d) l.spacing[d] = hi[d] - lo[d];
  } else {
    for (int d = 0; d < 3; ++d) l.spacing[d] *= l.scale;
  }
  return "";
}

bool make_lattice(const std::string& style, double a, Lattice& out) {
  if (style != "sc" && style != "bcc" && style != "fcc") return false;
  Lattice l;
  lattice_style_basis(style, l);
  l.scale = a;
  finish_lattice(l, false);
  out = l;
  return true;
}

int64_t create_lattice_atoms(State& s, const Lattice& lat, const std::vector<int>& basis_type,
                             const Region* region, int64_t first_id,
                             const std::function<bool(double, double, double)>& keep, int64_t first_order,
                             const SourcePos& at) {
  // The loop covers the lattice cells that overlap the (one-rank) sub-domain, narrowed to the region's
  // extent when it has one: the eight corners in lattice space, padded by one cell (LAMMPS's bounds).
  // A triclinic box: the bounding box of its eight corners (LAMMPS's Domain::bbox of the lamda cube).
  double bboxlo[3], bboxhi[3];
  for (int d = 0; d < 3; ++d) bboxlo[d] = s.box.lo[d], bboxhi[d] = s.box.hi[d];
  if (s.box.triclinic) {
    for (int d = 0; d < 3; ++d) bboxlo[d] = 1.0e20, bboxhi[d] = -1.0e20;
    for (int k = 0; k < 8; ++k) {
      const double l[3] = {(k & 1) ? 1.0 : 0.0, (k & 2) ? 1.0 : 0.0, (k & 4) ? 1.0 : 0.0};
      double x[3];
      s.box.from_lamda(l, x);
      for (int d = 0; d < 3; ++d)
        bboxlo[d] = std::min(bboxlo[d], x[d]), bboxhi[d] = std::max(bboxhi[d], x[d]);
    }
  }
  double rlo[3], rhi[3];
  if (region && region->extent(rlo, rhi)) {
    for (int d = 0; d < 3; ++d) {
      if (rlo[d] > bboxlo[d]) bboxlo[d] = rlo[d] > bboxhi[d] ? bboxhi[d] : rlo[d];
      if (rhi[d] < bboxhi[d]) bboxhi[d] = rhi[d] < bboxlo[d] ? bboxlo[d] : rhi[d];
    }
  }
  double mn[3] = {1.0e30, 1.0e30, 1.0e30}, mx[3] = {-1.0e30, -1.0e30, -1.0e30};
  for (int k = 0; k < 8; ++k) {
    double x = (k & 1) ? bboxhi[0] : bboxlo[0], y = (k & 2) ? bboxhi[1] : bboxlo[1],
           z = (k & 4) ? bboxhi[2] : bboxlo[2];
    lat.box2lattice(x, y, z);
    const double c[3] = {x, y, z};
    for (int d = 0; d < 3; ++d) mn[d] = std::min(c[d], mn[d]), mx[d] = std::max(c[d], mx[d]);
  }
  // The loop visits every lattice cell of that extent: refuse one whose atoms would not fit in memory (or
  // whose cell indices would not fit an int) before the loop starts.
  double cells = static_cast<double>(lat.basis.size());
  for (int d = 0; d < 3; ++d) {
    if (!(std::fabs(mn[d]) < 1e9 && std::fabs(mx[d]) < 1e9))
      fail_input(at, "create_atoms would span more than 1e9 lattice cells along " + std::string(1, "xyz"[d]));
    cells *= mx[d] - mn[d] + 3.0;
  }
  memory::check_allocation("creating up to " + fmt::format("{:.3g}", cells) + " lattice atoms",
                           cells * kAtomBytes, at);
  int lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = static_cast<int>(mn[d]) - 1;
    hi[d] = static_cast<int>(mx[d]) + 1;
    if (mn[d] < 0.0) --lo[d];
  }
  // LAMMPS shifts the bounds of periodic directions so that an atom on both faces is created once (on a
  // triclinic box the bounds are fractional, shifted by 1e-6).
  const bool tri = s.box.triclinic;
  double sublo[3], subhi[3];
  for (int d = 0; d < 3; ++d) {
    sublo[d] = tri ? 0.0 : s.box.lo[d];
    subhi[d] = tri ? 1.0 : s.box.hi[d];
    if (s.box.periodic(d)) {
      const double eps = tri ? 1.0e-6 : s.box.prd(d) * 1.0e-6;
      sublo[d] -= eps;
      subhi[d] -= 2.0 * eps;
    }
  }
  int64_t next_id = first_id > 0 ? first_id : s.atoms.max_id() + 1;
  int64_t next_order = first_order >= 0 ? first_order : static_cast<int64_t>(s.atoms.size());
  int64_t created = 0;
  const int nbasis = static_cast<int>(lat.basis.size());
  for (int k = lo[2]; k <= hi[2]; ++k) {
    for (int j = lo[1]; j <= hi[1]; ++j) {
      for (int i = lo[0]; i <= hi[0]; ++i) {
        for (int m = 0; m < nbasis; ++m) {
          double x = i + lat.basis[m][0], y = j + lat.basis[m][1], z = k + lat.basis[m][2];
          lat.lattice2box(x, y, z);
          if (region && !region->match(x, y, z)) continue;
          double c[3] = {x, y, z};
          if (tri) {
            const double p[3] = {x, y, z};
            s.box.to_lamda(p, c);
          }
          if (c[0] < sublo[0] || c[0] >= subhi[0] || c[1] < sublo[1] || c[1] >= subhi[1] || c[2] < sublo[2] ||
              c[2] >= subhi[2])
            continue;
          if (!keep || keep(x, y, z)) s.atoms.add(next_id, basis_type[m], x, y, z, next_order);
          ++next_id;
          ++next_order;
          ++created;
        }
      }
    }
  }
  return created;
}

}  // namespace wmd::md
