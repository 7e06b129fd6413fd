// Greedy coloring of logical one-step links so that routes of different links never share a (PE, color).
#include <cstdint>
#include <stdexcept>

#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {

std::size_t LinkColors::index(int dim, int dir, int line, int i) const {
  const int n = dim == 0 ? map_.grid.width : map_.grid.height;
  const int lines = dim == 0 ? map_.grid.height : map_.grid.width;
  const int d = dir > 0 ? 0 : 1;
  return ((static_cast<std::size_t>(dim) * 2 + d) * lines + line) * n + i;
}

LinkColors::LinkColors(const MeshMap& map, RouteTable& routes) : map_(map) {
  const Grid& g = map.grid;
  colors_.assign(2 * 2 * static_cast<std::size_t>(g.size()), -1);
  std::vector<std::uint32_t> busy(g.size(), 0);  // colors already given a role at each PE
  std::vector<int> path;
  for (int dim = 0; dim < 2; ++dim) {
    const RingMap& ring = dim == 0 ? map.x : map.y;
    const RingMap& other = dim == 0 ? map.y : map.x;
    for (int line = 0; line < other.n; ++line)
      for (int i = 0; i < ring.n; ++i)
        for (int dir : {+1, -1}) {
          const int j = ring.step(i, dir);
          if (j < 0) continue;
          const int p0 = ring.physical(i), p1 = ring.physical(j), q = other.physical(line);
          auto pe_at = [&](int p) { return dim == 0 ? g.id(p, q) : g.id(q, p); };
          path.clear();
          for (int p = p0;; p += (p1 > p0 ? 1 : -1)) {
            path.push_back(pe_at(p));
            if (p == p1) break;
          }
          std::uint32_t taken = 0;
          for (int pe : path) taken |= busy[pe];
          int c = 0;
          while (c < 32 && (taken >> c & 1u)) ++c;
          if (c >= routes.colors) throw std::logic_error("LinkColors: route table has too few colors");
          for (int pe : path) busy[pe] |= 1u << c;
          route_path(routes, path.front(), path.back(), c);
          colors_[index(dim, dir, line, i)] = static_cast<std::int16_t>(c);
        }
  }
}

int LinkColors::color(int dim, int dir, int line, int i) const {
  return colors_[index(dim, dir, line, i)];
}

}  // namespace wmd::fabric
