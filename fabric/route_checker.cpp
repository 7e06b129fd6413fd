// Static checks on route tables, including channel-dependency cycles (Dally & Seitz's deadlock condition).
#include "fabric/route_checker.hpp"

#include <fmt/format.h>

#include "base/error.hpp"

namespace wmd::fabric {
namespace {

std::string where(const Grid& g, int pe, int color) {
  return fmt::format("PE ({},{}) color {}", g.x_of(pe), g.y_of(pe), color);
}

int popcount(unsigned m) {
  int n = 0;
  for (; m; m &= m - 1) ++n;
  return n;
}

// Input queues are shared by all colors of a port, so a queue waits on every queue its colors forward into.
// A cycle among those waits can fill every queue on it and stop forever.
void find_dependency_cycle(const RouteTable& r, std::vector<std::string>& problems) {
  const Grid& g = r.grid;
  const int nodes = g.size() * link_port_count;
  std::vector<std::vector<int>> next(nodes);
  for (int pe = 0; pe < g.size(); ++pe)
    for (int c = 0; c < r.colors; ++c) {
      const unsigned in = r.rx_mask(pe, c), out = r.tx_mask(pe, c);
      for (int p = 0; p < link_port_count; ++p) {
        if (!(in & (1u << p))) continue;
        for (int t = 0; t < link_port_count; ++t) {
          if (!(out & (1u << t))) continue;
          const int nb = g.neighbour(pe, static_cast<Port>(t));
          if (nb < 0) continue;
          const int to = nb * link_port_count + opposite(static_cast<Port>(t));
          auto& v = next[pe * link_port_count + p];
          if (v.empty() || v.back() != to) v.push_back(to);
        }
      }
    }
  // Iterative DFS with colours: 0 unseen, 1 on stack, 2 done.
  std::vector<std::uint8_t> state(nodes, 0);
  std::vector<int> parent(nodes, -1);
  std::vector<std::pair<int, std::size_t>> stack;
  for (int s = 0; s < nodes; ++s) {
    if (state[s]) continue;
    stack.push_back({s, 0});
    state[s] = 1;
    while (!stack.empty()) {
      auto& [u, i] = stack.back();
      if (i < next[u].size()) {
        const int v = next[u][i++];
        if (state[v] == 0) {
          state[v] = 1;
          parent[v] = u;
          stack.push_back({v, 0});
        } else if (state[v] == 1) {
          // Found a cycle: walk back from u to v to describe it.
          std::vector<int> cyc{v};
          for (int w = u; w != v && w >= 0; w = parent[w]) cyc.push_back(w);
          std::string path;
          for (std::size_t k = cyc.size(); k-- > 0;) {
            const int pe = cyc[k] / link_port_count;
            path += fmt::format("({},{}):{} -> ", g.x_of(pe), g.y_of(pe),
                                port_name(static_cast<Port>(cyc[k] % link_port_count)));
          }
          path += fmt::format("({},{}):{}", g.x_of(v / link_port_count), g.y_of(v / link_port_count),
                              port_name(static_cast<Port>(v % link_port_count)));
          problems.push_back("route cycle can deadlock (input queues waiting on each other in a ring): " +
                             path);
          return;
        }
      } else {
        state[u] = 2;
        stack.pop_back();
      }
    }
  }
}

}  // namespace

std::vector<std::string> find_route_problems(const RouteTable& r, const HardwareSpec& hw) {
  std::vector<std::string> problems;
  const Grid& g = r.grid;
  const int used = r.colors_used();
  int highest = -1;
  for (int c = 0; c < r.colors; ++c)
    if (!r.color_unused(c)) highest = c;
  if (used > hw.colors || highest >= hw.colors)
    problems.push_back(fmt::format("too many colors: the routes use {} colors (highest id {}), {} has {}",
                                   used, highest, hw.name, hw.colors));
  const std::size_t limit = 20;  // enough to diagnose, not a flood
  for (int pe = 0; pe < g.size() && problems.size() < limit; ++pe)
    for (int c = 0; c < r.colors && problems.size() < limit; ++c) {
      const unsigned in = r.rx_mask(pe, c), out = r.tx_mask(pe, c);
      if (!in && !out) continue;
      if (popcount(in) > 1) {
        problems.push_back(fmt::format("{} has {} inputs ({}); a color takes input from one port only",
                                       where(g, pe, c), popcount(in), port_mask_name(in)));
        continue;
      }
      if (!in || !out) {
        problems.push_back(fmt::format("{} has {} but {}", where(g, pe, c),
                                       in ? "an input" : "outputs " + port_mask_name(out),
                                       in ? "no output" : "no input"));
        continue;
      }
      if (in & out) {
        problems.push_back(fmt::format("{} sends a wavelet back where it came from ({}): a U-turn",
                                       where(g, pe, c), port_mask_name(in & out)));
        continue;
      }
      for (int t = 0; t < link_port_count; ++t) {
        if (!(out & (1u << t))) continue;
        const Port p = static_cast<Port>(t);
        const int nb = g.neighbour(pe, p);
        if (nb < 0) {
          problems.push_back(fmt::format("{} routes {} off the edge of the {}x{} mesh", where(g, pe, c),
                                         port_name(p), g.width, g.height));
        } else if (!(r.rx_mask(nb, c) & port_bit(opposite(p)))) {
          problems.push_back(fmt::format("{} sends {} but PE ({},{}) takes color {} from {}, not {}",
                                         where(g, pe, c), port_name(p), g.x_of(nb), g.y_of(nb), c,
                                         port_mask_name(r.rx_mask(nb, c)), port_name(opposite(p))));
        }
      }
    }
  find_dependency_cycle(r, problems);
  return problems;
}

void check_routes(const RouteTable& routes, const HardwareSpec& hw, const std::string& what) {
  const auto problems = find_route_problems(routes, hw);
  if (problems.empty()) return;
  std::string msg = "invalid routes for " + what + ":";
  for (const auto& p : problems) msg += "\n  " + p;
  throw RunError(msg);
}

}  // namespace wmd::fabric
