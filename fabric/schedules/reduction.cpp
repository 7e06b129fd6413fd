// Global reduction with broadcast. Phase 1: in every row two chains (from the west and east ends) fold their
// words towards the root column; phase 2: the same along the root column towards the root; phase 3: the root
// multicasts the result down one color whose routes form a spanning tree (column first, then rows).
// Fold order is fixed (base, then west/north, then east/south input), so every run gives the same bits.
#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {
namespace {

int slot(int group, int words, int w) {
  return group * words + w;
}

// One chain hop: fold base with `inputs` and send to the neighbour (dst_group there), or keep it (dst_group <
// 0).
void fold_item(PhaseBuilder& pb, int pe, int words, int w, int base, const std::vector<int>& input_groups,
               int dst_group, int local_group) {
  std::vector<std::int32_t> inputs;
  for (int grp : input_groups) inputs.push_back(slot(grp, words, w));
  SendItem it;
  it.kind = ItemKind::Fold;
  it.a = pb.add_fold(base, inputs, local_group >= 0 ? slot(local_group, words, w) : -1);
  it.dst_slot = dst_group >= 0 ? slot(dst_group, words, w) : -1;
  it.src_pe = pe;
  it.word = static_cast<std::int16_t>(w);
  pb.add(it);
}

}  // namespace

Schedule build_reduction(const ScheduleSpec& spec) {
  const Grid& g = spec.grid;
  const int P = spec.words;
  Schedule s;
  s.name = spec.op == ReduceOp::Sum ? "reduce_sum" : spec.op == ReduceOp::Min ? "reduce_min" : "reduce_max";
  s.spec = spec;
  s.map = MeshMap(g, spec.wrap);  // where logical PEs sit; the reduction itself runs on physical neighbours
  s.routes = RouteTable(g, 32);
  const LinkColors lc(MeshMap(g, false), s.routes);
  s.slots_per_pe = ReduceSlots * P;
  const int cx = reduction_root_x(g), cy = reduction_root_y(g), root = g.id(cx, cy);

  {  // phase 1: rows fold towards column cx
    PhaseBuilder pb(g.size());
    for (int pe = 0; pe < g.size(); ++pe) {
      const int x = g.x_of(pe), y = g.y_of(pe);
      if (x < cx) {
        pb.begin_stream(pe, lc.color(0, +1, y, x));
        for (int w = 0; w < P; ++w)
          fold_item(pb, pe, P, w, -1 - w, x > 0 ? std::vector<int>{ReduceFromW} : std::vector<int>{},
                    ReduceFromW, -1);
      } else if (x > cx) {
        pb.begin_stream(pe, lc.color(0, -1, y, x));
        for (int w = 0; w < P; ++w)
          fold_item(pb, pe, P, w, -1 - w,
                    x < g.width - 1 ? std::vector<int>{ReduceFromE} : std::vector<int>{}, ReduceFromE, -1);
      } else {
        std::vector<int> in;
        if (cx > 0) in.push_back(ReduceFromW);
        if (cx < g.width - 1) in.push_back(ReduceFromE);
        pb.begin_stream(pe, -1);
        for (int w = 0; w < P; ++w) fold_item(pb, pe, P, w, -1 - w, in, -1, ReduceRow);
      }
    }
    s.phases.push_back(pb.finish());
  }
  {  // phase 2: column cx folds towards row cy
    PhaseBuilder pb(g.size());
    for (int y = 0; y < g.height; ++y) {
      const int pe = g.id(cx, y);
      if (y < cy) {
        pb.begin_stream(pe, lc.color(1, +1, cx, y));
        for (int w = 0; w < P; ++w)
          fold_item(pb, pe, P, w, slot(ReduceRow, P, w),
                    y > 0 ? std::vector<int>{ReduceFromN} : std::vector<int>{}, ReduceFromN, -1);
      } else if (y > cy) {
        pb.begin_stream(pe, lc.color(1, -1, cx, y));
        for (int w = 0; w < P; ++w)
          fold_item(pb, pe, P, w, slot(ReduceRow, P, w),
                    y < g.height - 1 ? std::vector<int>{ReduceFromS} : std::vector<int>{}, ReduceFromS, -1);
      } else {
        std::vector<int> in;
        if (cy > 0) in.push_back(ReduceFromN);
        if (cy < g.height - 1) in.push_back(ReduceFromS);
        pb.begin_stream(pe, -1);
        for (int w = 0; w < P; ++w) fold_item(pb, pe, P, w, slot(ReduceRow, P, w), in, -1, ReduceResult);
      }
    }
    s.phases.push_back(pb.finish());
  }
  if (g.size() > 1) {  // phase 3: broadcast tree on a color of its own
    int bc = 0;
    while (!s.routes.color_unused(bc)) ++bc;
    auto out = [&](int pe, std::uint8_t mask) {
      std::uint8_t m = 0;
      for (Port p : {North, East, South, West})
        if ((mask & port_bit(p)) && g.neighbour(pe, p) >= 0) m |= port_bit(p);
      return m;
    };
    const std::uint8_t ew = port_bit(East) | port_bit(West);
    s.routes.add(root, bc, Ramp, out(root, port_bit(North) | port_bit(South) | ew));
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x) {
        const int pe = g.id(x, y);
        if (pe == root) continue;
        if (x == cx)
          s.routes.add(pe, bc, y < cy ? South : North,
                       out(pe, (y < cy ? port_bit(North) : port_bit(South)) | ew) | port_bit(Ramp));
        else
          s.routes.add(pe, bc, x < cx ? East : West,
                       out(pe, x < cx ? port_bit(West) : port_bit(East)) | port_bit(Ramp));
      }
    PhaseBuilder pb(g.size());
    pb.begin_stream(root, bc);
    for (int w = 0; w < P; ++w) {
      SendItem it;
      it.kind = ItemKind::Slot;
      it.a = it.dst_slot = slot(ReduceResult, P, w);
      it.src_pe = root;
      it.word = static_cast<std::int16_t>(w);
      pb.add(it);
    }
    s.phases.push_back(pb.finish());
  }
  s.routes.shrink_to_used();
  return s;
}

}  // namespace wmd::fabric
