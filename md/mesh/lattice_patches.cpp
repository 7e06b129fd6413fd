#include "md/mesh/lattice_patches.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace wmd::md::mesh {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool fail(std::string* why, const std::string& m) {
  if (why) *why = m;
  return false;
}

// The offset of the site grid of spacing h along one axis: the circular mean of the coordinates' phases, so
// thermal noise and a shifted origin (displace_atoms) do not matter.
double grid_phase(const double* v, int n, double h) {
  double s = 0, c = 0;
  for (int i = 0; i < n; ++i) {
    const double t = 2 * kPi * v[i] / h;
    s += std::sin(t), c += std::cos(t);
  }
  return std::atan2(s, c) * h / (2 * kPi);
}

}  // namespace

bool map_lattice_patches(const Box& box, const Lattice& lat, const double* x, const double* y,
                         const double* z, int n, int max_w, int max_h, double cut, PatchMapping& out,
                         std::string* why) {
  if (!lat.defined() || lat.basis.empty()) return fail(why, "no lattice defined");
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (lat.orient[r][c] != (r == c ? 1 : 0) || lat.a[r][c] != (r == c ? 1.0 : 0.0))
        return fail(why, "the lattice is not in the cubic default orientation");
  // Sites lie on a grid of h = a/2 (a/1 when every basis coordinate is 0) along each axis; a site's parity
  // pattern (its three coordinates in h, mod 2) names its basis atom.
  bool half = false;
  for (const auto& b : lat.basis)
    for (double f : b) {
      if (f != 0.0 && f != 0.5) return fail(why, "a basis coordinate is neither 0 nor 1/2");
      half = half || f == 0.5;
    }
  const int per = half ? 2 : 1;  // grid steps per cell
  const double h = lat.scale / per;
  const int nb = static_cast<int>(lat.basis.size());
  std::vector<std::array<int, 3>> parity(nb);
  for (int k = 0; k < nb; ++k)
    for (int d = 0; d < 3; ++d) parity[k][d] = static_cast<int>(std::lround(lat.basis[k][d] * per));
  if (n == 0) return fail(why, "no atoms");

  const double* pos[3] = {x, y, z};
  std::vector<std::array<int64_t, 3>> m(n);
  int64_t lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    const double o = grid_phase(pos[d], n, h);
    lo[d] = INT64_MAX, hi[d] = INT64_MIN;
    for (int i = 0; i < n; ++i) {
      const double q = (pos[d][i] - o) / h;
      const double r = std::round(q);
      if (std::fabs(q - r) > 0.4) return fail(why, "an atom sits off the lattice's sites");
      m[i][d] = static_cast<int64_t>(r);
      lo[d] = std::min(lo[d], m[i][d]), hi[d] = std::max(hi[d], m[i][d]);
    }
  }
  // Which parity the lowest grid index has: the shift that puts every atom's pattern among the basis's.
  std::array<int, 3> shift{};
  bool found = false;
  for (int s = 0; s < 8 && !found; ++s) {
    const std::array<int, 3> t{s & 1, (s >> 1) & 1, (s >> 2) & 1};
    if (per == 1 && s) break;
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) {
      std::array<int, 3> p;
      for (int d = 0; d < 3; ++d) p[d] = static_cast<int>((m[i][d] - lo[d] + t[d]) % per);
      ok = std::find(parity.begin(), parity.end(), p) != parity.end();
    }
    if (ok) shift = t, found = true;
  }
  if (!found) return fail(why, "the atoms' site pattern is not the lattice's basis");
  // Cell columns (i, j) and each atom's site in its column: basis-major, then its layer along z.
  int64_t cells[3];
  for (int d = 0; d < 3; ++d) cells[d] = (hi[d] - lo[d] + shift[d]) / per + 1;
  for (int d = 0; d < 2; ++d)
    if (box.periodic(d) && std::fabs(cells[d] * lat.scale - box.prd(d)) > 1e-6 * box.prd(d))
      return fail(why, "a periodic length is not a whole number of cells");
  const int64_t sites = nb * cells[2];
  std::vector<int64_t> column(n), site(n), layer_site(n);
  for (int i = 0; i < n; ++i) {
    std::array<int64_t, 3> g;
    std::array<int, 3> p;
    for (int d = 0; d < 3; ++d) {
      g[d] = m[i][d] - lo[d] + shift[d];
      p[d] = static_cast<int>(g[d] % per);
    }
    const int k = static_cast<int>(std::find(parity.begin(), parity.end(), p) - parity.begin());
    column[i] = g[0] / per + cells[0] * (g[1] / per);
    site[i] = k * cells[2] + g[2] / per;    // basis-major
    layer_site[i] = (g[2] / per) * nb + k;  // layer-major
  }

  const bool wrap = box.periodic(0) || box.periodic(1);
  bool any = false;
  for (int64_t pw = 1; pw <= sites; ++pw) {
    if (sites % pw) continue;
    const int64_t ph = sites / pw;
    for (int variant = 0; variant < 8; ++variant) {
      // Transposed grid; sites filled along patch rows or columns; basis-major or layer-major order.
      const bool tr = variant & 1, by_column = variant & 2;
      const std::vector<int64_t>& order = (variant & 4) ? layer_site : site;
      if (tr && wrap) continue;  // grid columns follow x on the folded torus
      const int64_t cx = tr ? cells[1] : cells[0], cy = tr ? cells[0] : cells[1];
      const int64_t w = cx * pw, hgt = cy * ph;
      if (w > max_w || hgt > max_h) continue;
      Mapping map;
      map.width = static_cast<int>(w);
      map.height = static_cast<int>(hgt);
      map.wrap = wrap;
      map.atom_of.assign(static_cast<size_t>(w * hgt), -1);
      map.pe_of.assign(n, -1);
      bool unique = true;
      for (int i = 0; i < n && unique; ++i) {
        const int64_t ci = column[i] % cells[0], cj = column[i] / cells[0];
        const int64_t a = tr ? cj : ci, b = tr ? ci : cj;
        const int64_t l = order[i];
        const int64_t px = by_column ? l / ph : l % pw, py = by_column ? l % ph : l / pw;
        const int64_t pe = (a * pw + px) + w * (b * ph + py);
        if (map.atom_of[pe] >= 0) unique = false;
        map.atom_of[pe] = i;
        map.pe_of[i] = static_cast<int32_t>(pe);
      }
      if (!unique) return fail(why, "two atoms sit on one site");
      const int b = required_window(map, box, x, y, z, n, cut);
      if (!any || b < out.b || (b == out.b && w * hgt < static_cast<int64_t>(out.map.size()))) {
        out.map = std::move(map);
        out.patch_w = static_cast<int>(pw);
        out.patch_h = static_cast<int>(ph);
        out.transposed = tr;
        out.b = b;
        any = true;
      }
    }
  }
  if (!any) return fail(why, "no patch shape of the cell columns fits the wafer's grid");
  return true;
}

}  // namespace wmd::md::mesh
