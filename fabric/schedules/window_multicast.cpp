// Systolic window multicast. Horizontal stage: at step k each PE passes the payload that started k-1 logical
// steps behind it one step on, in both directions, so after b steps it holds its row's 2b neighbours.
// Vertical stage: the same with whole row windows (2b+1 payloads). Each logical link carries one stream per
// step and each PE sends and receives two, which balances links and ramps (see docs/fabric.md).
#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {

Schedule build_window_multicast(const ScheduleSpec& spec) {
  const Grid& g = spec.grid;
  const int b = spec.b, P = spec.words;
  Schedule s;
  s.name = "window_multicast";
  s.spec = spec;
  s.map = MeshMap(g, spec.wrap);
  s.routes = RouteTable(g, 32);
  const LinkColors lc(s.map, s.routes);
  s.routes.shrink_to_used();
  s.slots_per_pe = (2 * b + 1) * (2 * b + 1) * P;
  const RingMap &rx = s.map.x, &ry = s.map.y;
  auto phys = [&](int i, int j) { return g.id(rx.physical(i), ry.physical(j)); };

  const std::vector<std::vector<int>> dir_groups =
      spec.wrap ? std::vector<std::vector<int>>{{+1}, {-1}} : std::vector<std::vector<int>>{{+1, -1}};
  for (int k = 1; k <= b; ++k)  // horizontal stage
    for (const auto& dirs : dir_groups) {
      PhaseBuilder pb(g.size());
      for (int pe = 0; pe < g.size(); ++pe) {
        const int i = rx.logical(g.x_of(pe)), j = ry.logical(g.y_of(pe));
        for (int dir : dirs) {
          const int sdx = -dir * (k - 1);
          const int si = rx.step(i, sdx);
          if (rx.step(i, dir) < 0 || si < 0) continue;
          pb.begin_stream(pe, lc.color(0, dir, j, i));
          for (int w = 0; w < P; ++w) {
            SendItem it;
            it.kind = k == 1 ? ItemKind::Own : ItemKind::Slot;
            it.a = k == 1 ? w : window_slot(b, P, sdx, 0, w);
            it.dst_slot = window_slot(b, P, sdx - dir, 0, w);
            it.src_pe = phys(si, j);
            it.word = static_cast<std::int16_t>(w);
            pb.add(it);
          }
        }
      }
      s.phases.push_back(pb.finish());
    }
  for (int k = 1; k <= b; ++k)  // vertical stage: forward whole row windows
    for (const auto& dirs : dir_groups) {
      PhaseBuilder pb(g.size());
      for (int pe = 0; pe < g.size(); ++pe) {
        const int i = rx.logical(g.x_of(pe)), j = ry.logical(g.y_of(pe));
        for (int dir : dirs) {
          const int sdy = -dir * (k - 1);
          const int sj = ry.step(j, sdy);
          if (ry.step(j, dir) < 0 || sj < 0) continue;
          pb.begin_stream(pe, lc.color(1, dir, i, j));
          for (int dx = -b; dx <= b; ++dx) {
            const int si = rx.step(i, dx);
            if (si < 0) continue;
            for (int w = 0; w < P; ++w) {
              SendItem it;
              const bool own = dx == 0 && sdy == 0;
              it.kind = own ? ItemKind::Own : ItemKind::Slot;
              it.a = own ? w : window_slot(b, P, dx, sdy, w);
              it.dst_slot = window_slot(b, P, dx, sdy - dir, w);
              it.src_pe = phys(si, sj);
              it.word = static_cast<std::int16_t>(w);
              pb.add(it);
            }
          }
        }
      }
      s.phases.push_back(pb.finish());
    }
  return s;
}

}  // namespace wmd::fabric
