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
  std::vector<std::array<double, 3>> res(n);
  std::vector<char> off_site(n, 0);  // more than 3/4 of a spacing from every site: placed with the strays
  int64_t lo[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, hi[3] = {INT64_MIN, INT64_MIN, INT64_MIN};
  // Blocks of about 4 cells in (x, y): each finds the grid's offset among its own atoms, and the offsets are
  // unwrapped from block to block (each taken within half a spacing of its neighbour's), so a slab that bends
  // or breathes unevenly still puts every atom on its own site.
  double xy_lo[2], xy_len[2];
  int nblk[2];
  for (int d = 0; d < 2; ++d) {
    const auto [mn, mx] = std::minmax_element(pos[d], pos[d] + n);
    xy_lo[d] = *mn;
    xy_len[d] = *mx - *mn + 1e-9;
    nblk[d] = std::max(1, static_cast<int>(xy_len[d] / (4 * lat.scale)));
  }
  std::vector<int> block(n);
  for (int i = 0; i < n; ++i) {
    int bxy[2];
    for (int d = 0; d < 2; ++d)
      bxy[d] = std::min(nblk[d] - 1, static_cast<int>((pos[d][i] - xy_lo[d]) / xy_len[d] * nblk[d]));
    block[i] = bxy[0] + nblk[0] * bxy[1];
  }
  const int blocks = nblk[0] * nblk[1];
  for (int d = 0; d < 3; ++d) {
    const double hd = h;
    const double base = *std::min_element(pos[d], pos[d] + n);
    std::vector<double> sn(blocks, 0.0), cs(blocks, 0.0), off(blocks, 0.0);
    std::vector<char> has(blocks, 0);
    for (int i = 0; i < n; ++i) {
      const double t = 2 * kPi * (pos[d][i] - base) / hd;
      sn[block[i]] += std::sin(t), cs[block[i]] += std::cos(t), has[block[i]] = 1;
    }
    double global = 0;
    {
      double S = 0, C = 0;
      for (int k = 0; k < blocks; ++k) S += sn[k], C += cs[k];
      global = std::atan2(S, C) * hd / (2 * kPi);
    }
    for (int by = 0; by < nblk[1]; ++by)
      for (int bx = 0; bx < nblk[0]; ++bx) {
        const int k = bx + nblk[0] * by;
        const double ref = bx > 0 ? off[k - 1] : (by > 0 ? off[k - nblk[0]] : global);
        if (!has[k]) {
          off[k] = ref;
          continue;
        }
        const double o = std::atan2(sn[k], cs[k]) * hd / (2 * kPi);
        off[k] = o + hd * std::round((ref - o) / hd);
      }
    for (int i = 0; i < n; ++i) {
      const double q = (pos[d][i] - base - off[block[i]]) / hd;
      m[i][d] = static_cast<int64_t>(std::round(q));
      res[i][d] = q - static_cast<double>(m[i][d]);
    }
  }
  auto pattern = [&](const std::array<int64_t, 3>& g, const std::array<int, 3>& t) {
    std::array<int, 3> p;
    for (int d = 0; d < 3; ++d) p[d] = static_cast<int>(((g[d] + t[d]) % per + per) % per);
    return p;
  };
  auto in_basis = [&](const std::array<int, 3>& p) {
    return std::find(parity.begin(), parity.end(), p) != parity.end();
  };
  // The crystal's extent along each axis: the grid planes that hold at least a tenth of a typical plane's
  // atoms (an atom beyond them left the surface).
  int64_t plane_lo[3], plane_hi[3];
  for (int d = 0; d < 3; ++d) {
    std::vector<int64_t> g(n);
    for (int i = 0; i < n; ++i) g[i] = m[i][d];
    std::sort(g.begin(), g.end());
    std::vector<std::pair<int64_t, int64_t>> planes;  // grid index, atoms
    for (int64_t v : g)
      if (planes.empty() || planes.back().first != v)
        planes.emplace_back(v, 1);
      else
        ++planes.back().second;
    std::vector<int64_t> counts;
    for (const auto& pl : planes) counts.push_back(pl.second);
    std::nth_element(counts.begin(), counts.begin() + counts.size() / 2, counts.end());
    const int64_t typical = counts[counts.size() / 2];
    std::size_t a = 0, b = planes.size() - 1;
    while (a < b && planes[a].second * 10 < typical) ++a;
    while (b > a && planes[b].second * 10 < typical) --b;
    plane_lo[d] = planes[a].first, plane_hi[d] = planes[b].first;
  }
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  // Which parity grid index 0 has: the shift that puts the most atoms' patterns among the basis's; of shifts
  // that do equally well (bcc's two), the one whose cells hold the crystal in the fewest.
  std::array<int, 3> shift{};
  int64_t best = -1, best_cells = 0;
  for (int s = 0; s < (per == 1 ? 1 : 8); ++s) {
    const std::array<int, 3> t{s & 1, (s >> 1) & 1, (s >> 2) & 1};
    int64_t count = 0, cells = 1;
    for (int i = 0; i < n; ++i) count += in_basis(pattern(m[i], t));
    for (int d = 0; d < 3; ++d)
      cells *= floor_div(plane_hi[d] + t[d], per) - floor_div(plane_lo[d] + t[d], per) + 1;
    if (count > best || (count == best && cells < best_cells)) best = count, best_cells = cells, shift = t;
  }
  // An atom whose nearest grid point is no site (a large excursion along one axis) takes the site across the
  // axis it is least sure of; more than three quarters of a spacing from every site is not on the lattice.
  for (int i = 0; i < n; ++i) {
    if (!in_basis(pattern(m[i], shift))) {
      std::array<int, 3> axes{0, 1, 2};
      std::sort(axes.begin(), axes.end(),
                [&](int u, int v) { return std::fabs(res[i][u]) > std::fabs(res[i][v]); });
      bool fixed = false;
      for (int d : axes) {
        std::array<int64_t, 3> g = m[i];
        g[d] += res[i][d] > 0 ? 1 : -1;
        if (in_basis(pattern(g, shift))) {
          res[i][d] -= res[i][d] > 0 ? 1 : -1;
          m[i] = g;
          fixed = true;
          break;
        }
      }
      if (!fixed) off_site[i] = 1;
    }
    for (int d = 0; d < 3; ++d)
      if (std::fabs(res[i][d]) > 0.75) off_site[i] = 1;
  }
  // Cells of the crystal's extent; an atom beyond it, or on a site already taken, is a stray.
  for (int d = 0; d < 3; ++d)
    lo[d] = floor_div(plane_lo[d] + shift[d], per), hi[d] = floor_div(plane_hi[d] + shift[d], per);
  int64_t cells[3];
  for (int d = 0; d < 3; ++d) cells[d] = hi[d] - lo[d] + 1;
  for (int d = 0; d < 2; ++d)
    if (box.periodic(d) && std::fabs(cells[d] * lat.scale - box.prd(d)) > 1e-6 * box.prd(d))
      return fail(why, "a periodic length is not a whole number of cells");
  const int64_t sites = nb * cells[2];
  const int64_t all_sites = cells[0] * cells[1] * sites;
  // Sites by (column, site in column, basis-major); a site's grid position for the strays' nearest search.
  std::vector<int32_t> taken(static_cast<std::size_t>(all_sites), -1);
  std::vector<int64_t> column(n, -1), site(n, -1), layer_site(n);
  std::vector<int> strays;
  for (int i = 0; i < n; ++i) {
    std::array<int64_t, 3> c;
    bool inside = true;
    for (int d = 0; d < 3; ++d) {
      c[d] = floor_div(m[i][d] + shift[d], per) - lo[d];
      inside = inside && c[d] >= 0 && c[d] < cells[d];
    }
    const std::array<int, 3> p = pattern(m[i], shift);
    const int k = static_cast<int>(std::find(parity.begin(), parity.end(), p) - parity.begin());
    const int64_t col = c[0] + cells[0] * c[1], st = k * cells[2] + c[2];
    if (!inside || off_site[i] || taken[col * sites + st] >= 0) {
      strays.push_back(i);
      continue;
    }
    taken[col * sites + st] = i;
    column[i] = col, site[i] = st;
  }
  // Each stray takes the free site nearest its position on the grid (the one it left, as a rule). Strays are
  // surface atoms that hopped, a handful in a thermal slab; more than 1 % is no crystal.
  if (strays.size() * 100 > static_cast<std::size_t>(n))
    return fail(why, std::to_string(strays.size()) + " atoms (more than 1 %) sit off the lattice's sites");
  for (int i : strays) {
    double q[3];
    for (int d = 0; d < 3; ++d) q[d] = static_cast<double>(m[i][d] + shift[d]) + res[i][d] - per * lo[d];
    double best_d2 = 1e300;
    int64_t best_site = -1;
    // Search a growing cube of cells around the stray's cell.
    int64_t c0[3];
    for (int d = 0; d < 3; ++d)
      c0[d] = std::clamp<int64_t>(floor_div(static_cast<int64_t>(std::floor(q[d])), per), 0, cells[d] - 1);
    for (int64_t rad = 0; rad <= std::max({cells[0], cells[1], cells[2]}) && best_site < 0; ++rad)
      for (int64_t cz = std::max<int64_t>(0, c0[2] - rad); cz <= std::min(cells[2] - 1, c0[2] + rad); ++cz)
        for (int64_t cy = std::max<int64_t>(0, c0[1] - rad); cy <= std::min(cells[1] - 1, c0[1] + rad); ++cy)
          for (int64_t cx = std::max<int64_t>(0, c0[0] - rad); cx <= std::min(cells[0] - 1, c0[0] + rad);
               ++cx)
            for (int k = 0; k < nb; ++k) {
              const int64_t col = cx + cells[0] * cy, st = k * cells[2] + cz;
              if (taken[col * sites + st] >= 0) continue;
              const double g[3] = {static_cast<double>(per * cx + parity[k][0]),
                                   static_cast<double>(per * cy + parity[k][1]),
                                   static_cast<double>(per * cz + parity[k][2])};
              const double d2 = (g[0] - q[0]) * (g[0] - q[0]) + (g[1] - q[1]) * (g[1] - q[1]) +
                                (g[2] - q[2]) * (g[2] - q[2]);
              if (d2 < best_d2) best_d2 = d2, best_site = col * sites + st;
            }
    if (best_site < 0) return fail(why, "two atoms sit on one site (more atoms than sites)");
    taken[best_site] = i;
    column[i] = best_site / sites, site[i] = best_site % sites;
  }
  for (int i = 0; i < n; ++i) {
    const int64_t k = site[i] / cells[2], layer = site[i] % cells[2];
    layer_site[i] = layer * nb + k;  // layer-major
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
