// Folded-torus embedding: a periodic ring of n logical positions laid on a line of n PEs so that logical
// neighbours (the wrap-around pair included) are at most 2 physical hops apart.
#pragma once
#include "fabric/grid.hpp"

namespace wmd::fabric {

/// One dimension of the logical→physical map. Without wrap it is the identity; with wrap the ring is cut in
/// two halves, the first laid on even positions going out and the second on odd positions coming back.
struct RingMap {
  int n = 0;
  bool wrap = false;

  /// Length of the first half (logical 0..half()-1 sit on even physical positions).
  int half() const { return (n + 1) / 2; }
  /// Physical position of logical position `i` (0 <= i < n).
  int physical(int i) const {
    if (!wrap) return i;
    return i < half() ? 2 * i : 2 * (n - 1 - i) + 1;
  }
  /// Logical position of physical position `p` (0 <= p < n).
  int logical(int p) const {
    if (!wrap) return p;
    return (p % 2 == 0) ? p / 2 : n - 1 - (p - 1) / 2;
  }
  /// Logical position `i + d`, wrapped when periodic; -1 when it falls off a non-periodic edge.
  int step(int i, int d) const {
    int j = i + d;
    if (wrap) return ((j % n) + n) % n;
    return (j < 0 || j >= n) ? -1 : j;
  }
};

/// The 2D map: logical (i, j) → physical (x, y), one RingMap per dimension.
struct MeshMap {
  Grid grid;  // physical grid (same dimensions as the logical one)
  RingMap x, y;

  MeshMap() = default;
  /// Identity map (wrap = false) or folded torus in both dimensions (wrap = true).
  MeshMap(Grid g, bool wrap) : grid(g), x{g.width, wrap}, y{g.height, wrap} {}
  /// Physical PE id of logical PE `logical_id` (logical ids are row-major like physical ones).
  int physical_pe(int logical_id) const {
    return grid.id(x.physical(logical_id % grid.width), y.physical(logical_id / grid.width));
  }
  /// Logical PE id of physical PE `pe`.
  int logical_pe(int pe) const { return grid.id(x.logical(grid.x_of(pe)), y.logical(grid.y_of(pe))); }
};

}  // namespace wmd::fabric
