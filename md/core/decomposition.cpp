#include "md/core/decomposition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "base/error.hpp"
#include "io/command.hpp"

namespace wmd::md {

std::vector<double> Decomposition::uniform_cuts(int p) {
  std::vector<double> f(p + 1);
  for (int c = 0; c <= p; ++c) f[c] = c * (1.0 / p);  // LAMMPS's xsplit, so that bounds keep their bits
  f[p] = 1.0;
  return f;
}

Decomposition::Decomposition(const std::array<int, 3>& grid, int rank) : grid_(grid) {
  coord_[2] = rank % grid_[2];
  coord_[1] = (rank / grid_[2]) % grid_[1];
  coord_[0] = rank / (grid_[1] * grid_[2]);
  for (int d = 0; d < 3; ++d) cut_[d] = uniform_cuts(grid_[d]);
}

void Decomposition::set_cuts(int d, const std::vector<double>& fractions) {
  if (fractions.size() != static_cast<size_t>(grid_[d]) + 1 || fractions.front() != 0.0 ||
      fractions.back() != 1.0)
    throw std::invalid_argument("cuts along a direction: grid + 1 fractions from 0 to 1");
  for (size_t c = 1; c < fractions.size(); ++c)
    if (!(fractions[c] > fractions[c - 1])) throw std::invalid_argument("cuts must increase");
  cut_[d] = fractions;
}

std::array<int, 3> Decomposition::best_grid(const Box& box, int ranks, const std::array<int, 3>& fixed) {
  double axy = box.prd(0) * box.prd(1), axz = box.prd(0) * box.prd(2), ayz = box.prd(1) * box.prd(2);
  if (box.triclinic) {
    // LAMMPS's ProcMap: the areas of the faces spanned by the edge vectors a, b, c.
    auto cross_norm = [](const double u[3], const double v[3]) {
      const double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
      return std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    };
    const double a[3] = {box.prd(0), 0.0, 0.0}, b[3] = {box.xy, box.prd(1), 0.0},
                 c[3] = {box.xz, box.yz, box.prd(2)};
    axy = cross_norm(a, b), axz = cross_norm(a, c), ayz = cross_norm(b, c);
  }
  std::array<int, 3> best = {1, 1, ranks};
  double best_surf = std::numeric_limits<double>::max();
  // LAMMPS's ProcMap::factor/best_factors order: px outer, py inner; strict < keeps the first on ties.
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px || (fixed[0] > 0 && px != fixed[0])) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py || (fixed[1] > 0 && py != fixed[1])) continue;
      const int pz = ranks / px / py;
      if (fixed[2] > 0 && pz != fixed[2]) continue;
      const double surf = axy / px / py + axz / px / pz + ayz / py / pz;
      if (surf < best_surf) best_surf = surf, best = {px, py, pz};
    }
  }
  return best;
}

bool Decomposition::parse_grid(const std::string& text, std::array<int, 3>& grid) {
  std::string t = text;
  std::replace(t.begin(), t.end(), 'X', 'x');
  std::istringstream in(t);
  std::string part;
  int k = 0;
  while (std::getline(in, part, 'x')) {
    long long v;
    if (k >= 3 || !io::parse_integer(part, v) || v < 1 || v > 1000000) return false;
    grid[k++] = static_cast<int>(v);
  }
  return k == 3;
}

std::string Decomposition::grid_text() const {
  return std::to_string(grid_[0]) + "x" + std::to_string(grid_[1]) + "x" + std::to_string(grid_[2]);
}

double Decomposition::bound(const Box& box, int d, int c) const {
  if (c <= 0) return box.lo[d];
  if (c >= grid_[d]) return box.hi[d];
  return box.lo[d] + box.prd(d) * cut_[d][c];  // LAMMPS: boxlo + prd·xsplit[c]
}

int Decomposition::cell_of(const Box& box, int d, double x) const {
  const int p = grid_[d];
  if (p == 1) return 0;
  // A first guess (exact for uniform cuts, near for balanced ones), then the bounds' own comparisons decide.
  const double f = (x - box.lo[d]) / box.prd(d);
  int c = static_cast<int>(std::upper_bound(cut_[d].begin(), cut_[d].end(), f) - cut_[d].begin()) - 1;
  c = std::max(0, std::min(p - 1, c));
  while (c > 0 && x < bound(box, d, c)) --c;
  while (c < p - 1 && x >= bound(box, d, c + 1)) ++c;
  return c;
}

bool Decomposition::owns(const Box& box, double x, double y, double z) const {
  if (box.triclinic) {  // sub-domains are slabs of fractional coordinates (LAMMPS's sublo_lamda)
    const double p[3] = {x, y, z};
    double l[3];
    box.to_lamda(p, l);
    const Box u = box.lamda_frame();
    return cell_of(u, 0, l[0]) == coord_[0] && cell_of(u, 1, l[1]) == coord_[1] &&
           cell_of(u, 2, l[2]) == coord_[2];
  }
  return cell_of(box, 0, x) == coord_[0] && cell_of(box, 1, y) == coord_[1] &&
         cell_of(box, 2, z) == coord_[2];
}

int Decomposition::neighbor(const Box& box, int d, int dir) const {
  std::array<int, 3> c = coord_;
  c[d] += dir;
  if (c[d] < 0 || c[d] >= grid_[d]) {
    if (!box.periodic(d)) return -1;
    c[d] = (c[d] + grid_[d]) % grid_[d];
  }
  return rank_of(c);
}

double Decomposition::min_width(const Box& box, int d) const {
  double w = std::numeric_limits<double>::max();
  for (int c = 0; c < grid_[d]; ++c) w = std::min(w, bound(box, d, c + 1) - bound(box, d, c));
  return w;
}

int Decomposition::reach(const Box& box, int d, int c, int dir, double cut) const {
  const int p = grid_[d];
  const double enough = cut + 1e-12 * (cut + box.prd(d));
  double covered = 0.0;  // Å from c's face to the far face of the last sub-domain counted
  int count = 0;
  for (int k = c + dir; covered < enough; k += dir) {
    if (k < 0 || k >= p) {
      if (!box.periodic(d)) break;
      k = (k % p + p) % p;
    }
    ++count;
    covered += bound(box, d, k + 1) - bound(box, d, k);
    // check_ghost_budget refuses cutoffs this far beyond the box long before; this only stops a runaway.
    if (count > (1 << 20) || !(covered > 0.0))
      throw RunError("the ghost cutoff reaches more than 2^20 sub-domains along " + std::string(1, "xyz"[d]));
  }
  return count;
}

int Decomposition::max_reach(const Box& box, int d, double cut) const {
  int most = 0;
  for (int c = 0; c < grid_[d]; ++c)
    most = std::max({most, reach(box, d, c, -1, cut), reach(box, d, c, +1, cut)});
  return most;
}

}  // namespace wmd::md
