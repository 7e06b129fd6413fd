// Per-PE, per-color static routes: one input port and a set of output ports (several = multicast).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "fabric/grid.hpp"

namespace wmd::fabric {

/// Route tables of a whole grid, stored flat: entry (pe, color) at pe * colors + color.
/// Masks are sets of Port bits; a well-formed entry has exactly one input bit (the checker enforces it).
struct RouteTable {
  Grid grid;
  int colors = 0;                // colors the table has room for (ids 0..colors-1)
  std::vector<std::uint8_t> rx;  // input-port mask per (pe, color)
  std::vector<std::uint8_t> tx;  // output-port mask per (pe, color)

  RouteTable() = default;
  /// An empty table for `grid` with room for `colors` colors.
  RouteTable(Grid g, int colors);

  /// Adds input `in` and outputs `out_mask` to (pe, color); repeated calls merge (bad merges are kept for the
  /// checker).
  void add(int pe, int color, Port in, std::uint8_t out_mask);
  /// Input mask of (pe, color).
  std::uint8_t rx_mask(int pe, int color) const { return rx[static_cast<std::size_t>(pe) * colors + color]; }
  /// Output mask of (pe, color).
  std::uint8_t tx_mask(int pe, int color) const { return tx[static_cast<std::size_t>(pe) * colors + color]; }
  /// True when no PE routes `color`.
  bool color_unused(int color) const;
  /// Number of distinct colors that some PE routes.
  int colors_used() const;
  /// Drops unused color ids above the highest one in use (ids are kept, so routes stay valid).
  void shrink_to_used();
};

/// Human-readable "ports" list of a mask, e.g. "E+ramp".
std::string port_mask_name(std::uint8_t mask);

}  // namespace wmd::fabric
