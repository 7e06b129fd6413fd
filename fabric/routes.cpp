// Route-table storage.
#include "fabric/routes.hpp"

#include <algorithm>

namespace wmd::fabric {

RouteTable::RouteTable(Grid g, int n_colors)
    : grid(g),
      colors(n_colors),
      rx(static_cast<std::size_t>(g.size()) * n_colors, 0),
      tx(static_cast<std::size_t>(g.size()) * n_colors, 0) {}

void RouteTable::add(int pe, int color, Port in, std::uint8_t out_mask) {
  const std::size_t i = static_cast<std::size_t>(pe) * colors + color;
  rx[i] |= port_bit(in);
  tx[i] |= out_mask;
}

bool RouteTable::color_unused(int color) const {
  for (int pe = 0; pe < grid.size(); ++pe)
    if (rx_mask(pe, color) || tx_mask(pe, color)) return false;
  return true;
}

int RouteTable::colors_used() const {
  std::vector<bool> used(colors, false);
  for (std::size_t i = 0; i < rx.size(); ++i)
    if (rx[i] || tx[i]) used[i % colors] = true;
  int n = 0;
  for (bool u : used) n += u;
  return n;
}

void RouteTable::shrink_to_used() {
  int keep = 0;
  for (std::size_t i = 0; i < rx.size(); ++i)
    if (rx[i] || tx[i]) keep = std::max(keep, static_cast<int>(i % colors) + 1);
  if (keep == colors) return;
  RouteTable t(grid, keep);
  for (int pe = 0; pe < grid.size(); ++pe)
    for (int c = 0; c < keep; ++c) {
      t.rx[static_cast<std::size_t>(pe) * keep + c] = rx_mask(pe, c);
      t.tx[static_cast<std::size_t>(pe) * keep + c] = tx_mask(pe, c);
    }
  *this = std::move(t);
}

std::string port_mask_name(std::uint8_t mask) {
  std::string s;
  for (int p = 0; p < port_count; ++p) {
    if (!(mask & (1u << p))) continue;
    if (!s.empty()) s += "+";
    s += port_name(static_cast<Port>(p));
  }
  return s.empty() ? "none" : s;
}

}  // namespace wmd::fabric
