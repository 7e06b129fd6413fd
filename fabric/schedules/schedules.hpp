// Builders of the schedules MD needs, and the receive-slot layouts they share with the fast transport.
#pragma once
#include <string>
#include <vector>

#include "fabric/schedule.hpp"

namespace wmd::fabric {

/// Receive slot of word `w` from the PE at logical offset (dx, dy) in a radius-`b` window: slots run
/// row-major over the (2b+1)² offsets (the centre slot is unused by transfers), `words` per offset.
inline int window_slot(int b, int words, int dx, int dy, int w) {
  return ((dy + b) * (2 * b + 1) + (dx + b)) * words + w;
}

/// Neighbour-swap receive groups: payload from the logical neighbour at -x, +x, -y, +y.
enum SwapFrom : int { FromMinusX = 0, FromPlusX = 1, FromMinusY = 2, FromPlusY = 3 };

/// Reduction slot groups (each `words` wide); `ReduceResult` holds the broadcast result at every PE.
enum ReduceSlot : int {
  ReduceFromW = 0,
  ReduceFromE,
  ReduceFromN,
  ReduceFromS,
  ReduceRow,
  ReduceResult,
  ReduceSlots
};

/// Root PE (physical column, row) of a reduction on grid `g`: the centre, so chains are at most half as long.
inline int reduction_root_x(const Grid& g) {
  return (g.width - 1) / 2;
}
inline int reduction_root_y(const Grid& g) {
  return (g.height - 1) / 2;
}

/// Systolic window multicast: b horizontal steps then b vertical steps; every step each PE passes one payload
/// (one row window in the vertical stage) to each logical neighbour, so no link ever carries two streams.
Schedule build_window_multicast(const ScheduleSpec& spec);
/// Neighbour swap: pairs of logical neighbours exchange payloads, x-pairs then y-pairs, even then odd.
Schedule build_neighbour_swap(const ScheduleSpec& spec);
/// Global reduction (row chains to the centre column, column chain to the centre) then a multicast broadcast.
Schedule build_reduction(const ScheduleSpec& spec);
/// Validates `spec` and builds the schedule of its kind.
Schedule build_schedule(const ScheduleSpec& spec);

/// Greedy colors for every logical one-step link (i → i±1 along rows and columns), routed on `routes`.
/// With wrap a logical step may cross two physical hops; each PE gives each color at most one role.
class LinkColors {
 public:
  /// Colors and routes all links of `map` into `routes` (which needs room for at least 32 colors).
  LinkColors(const MeshMap& map, RouteTable& routes);
  /// Color of the link from logical position i to i+dir (dir = ±1) along dimension dim (0 = x, 1 = y) in
  /// logical line `line` (the row for dim 0, the column for dim 1); -1 where there is no such link.
  int color(int dim, int dir, int line, int i) const;

 private:
  std::size_t index(int dim, int dir, int line, int i) const;
  MeshMap map_;
  std::vector<std::int16_t> colors_;
};

}  // namespace wmd::fabric
