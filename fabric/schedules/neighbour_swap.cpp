// Neighbour swap: logical neighbours pair up and exchange payloads. Phases: x-pairs starting at even i, at
// odd i, then (periodic, odd n) the wrap pair; the same along y. A PE is in at most one pair per phase. With
// wrap a pair can be 2 physical hops apart and two pairs would share a link, so each direction gets a phase
// of its own.
#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {
namespace {

// Pair starts for one dimension, grouped into phases; a pair (i, i+1 mod n) is named by i.
std::vector<std::vector<int>> pair_phases(const RingMap& r) {
  std::vector<std::vector<int>> phases(2);
  for (int i = 0; i < r.n; ++i)
    if (r.step(i, 1) >= 0 && !(r.wrap && r.n % 2 == 1 && i == r.n - 1)) phases[i % 2].push_back(i);
  if (r.wrap && r.n % 2 == 1) phases.push_back({r.n - 1});  // (n-1, 0) collides with (0, 1) otherwise
  return phases;
}

}  // namespace

Schedule build_neighbour_swap(const ScheduleSpec& spec) {
  const Grid& g = spec.grid;
  const int P = spec.words;
  Schedule s;
  s.name = "neighbour_swap";
  s.spec = spec;
  s.map = MeshMap(g, spec.wrap);
  s.routes = RouteTable(g, 32);
  const LinkColors lc(s.map, s.routes);
  s.routes.shrink_to_used();
  s.slots_per_pe = 4 * P;
  for (int dim = 0; dim < 2; ++dim) {
    const RingMap& ring = dim == 0 ? s.map.x : s.map.y;
    const RingMap& other = dim == 0 ? s.map.y : s.map.x;
    for (const auto& starts : pair_phases(ring))
      for (int only_dir : s.spec.wrap ? std::vector<int>{+1, -1} : std::vector<int>{0}) {
        if (starts.empty()) continue;
        std::vector<int> role(ring.n, 0);  // +1: sends to i+1; -1: sends to i-1
        for (int i : starts) {
          role[i] = +1;
          role[ring.step(i, 1)] = -1;
        }
        PhaseBuilder pb(g.size());
        for (int pe = 0; pe < g.size(); ++pe) {
          const int ppos = dim == 0 ? g.x_of(pe) : g.y_of(pe);
          const int qpos = dim == 0 ? g.y_of(pe) : g.x_of(pe);
          const int i = ring.logical(ppos), line = other.logical(qpos);
          const int dir = role[i];
          if (dir == 0 || (only_dir != 0 && dir != only_dir)) continue;
          pb.begin_stream(pe, lc.color(dim, dir, line, i));
          // The receiver sees the sender on its -dir side.
          const int from = dim == 0 ? (dir > 0 ? FromMinusX : FromPlusX) : (dir > 0 ? FromMinusY : FromPlusY);
          for (int w = 0; w < P; ++w) {
            SendItem it;
            it.kind = ItemKind::Own;
            it.a = w;
            it.dst_slot = from * P + w;
            it.src_pe = pe;
            it.word = static_cast<std::int16_t>(w);
            pb.add(it);
          }
        }
        s.phases.push_back(pb.finish());
      }
  }
  return s;
}

}  // namespace wmd::fabric
