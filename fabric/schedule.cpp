// Schedule containers and helpers shared by the schedule builders.
#include "fabric/schedule.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "base/error.hpp"

namespace wmd::fabric {

void validate_spec(const ScheduleSpec& s) {
  auto bad = [](const std::string& msg) { throw InputError("<schedule>", 0, msg); };
  if (s.grid.width < 1 || s.grid.height < 1) bad("the mesh needs at least 1x1 PEs");
  if (s.grid.width > 4096 || s.grid.height > 4096) bad("the mesh may be at most 4096 PEs on a side");
  if (s.words < 1 || s.words > kMaxPayloadWords)
    bad(fmt::format("payload words must be 1..{}, got {}", kMaxPayloadWords, s.words));
  if (s.wrap && (s.grid.width < 3 || s.grid.height < 3))
    bad(fmt::format("a periodic (wrapped) {}x{} mesh needs at least 3 PEs per side", s.grid.width,
                    s.grid.height));
  if (s.kind == ScheduleKind::WindowMulticast) {
    if (s.b < 1) bad(fmt::format("window radius b must be at least 1, got {}", s.b));
    // In 64 bits: 2b+1 of a b near INT_MAX wraps to a negative int, which every mesh would pass.
    const long long side = 2LL * s.b + 1;
    if (side > s.grid.width || side > s.grid.height)
      bad(fmt::format("window radius b = {} needs a mesh at least {}x{} (2b+1 per side), got {}x{}", s.b,
                      side, side, s.grid.width, s.grid.height));
  }
}

void PhaseBuilder::begin_stream(int pe, int color) {
  if (!phase_.streams.empty() && phase_.streams.back().pe > pe)
    throw std::logic_error("PhaseBuilder: streams must be added in PE order");
  Stream s;
  s.pe = pe;
  s.color = static_cast<std::int16_t>(color);
  s.item_begin = s.item_end = static_cast<std::int32_t>(phase_.items.size());
  phase_.streams.push_back(s);
}

std::int32_t PhaseBuilder::add_fold(std::int32_t base, const std::vector<std::int32_t>& input_slots,
                                    std::int32_t local_slot) {
  FoldSpec f;
  f.base = base;
  f.input_begin = static_cast<std::int32_t>(phase_.fold_inputs.size());
  phase_.fold_inputs.insert(phase_.fold_inputs.end(), input_slots.begin(), input_slots.end());
  f.input_end = static_cast<std::int32_t>(phase_.fold_inputs.size());
  f.local_slot = local_slot;
  phase_.folds.push_back(f);
  return static_cast<std::int32_t>(phase_.folds.size() - 1);
}

Phase PhaseBuilder::finish() {
  // Close stream ranges: each stream ends where the next begins.
  auto& st = phase_.streams;
  for (std::size_t i = 0; i < st.size(); ++i)
    st[i].item_end =
        (i + 1 < st.size()) ? st[i + 1].item_begin : static_cast<std::int32_t>(phase_.items.size());
  std::vector<Stream> kept;
  kept.reserve(st.size());
  for (const auto& s : st)
    if (s.item_end > s.item_begin) kept.push_back(s);
  st.swap(kept);
  phase_.pe_offset.assign(pe_count_ + 1, 0);
  for (const auto& s : st) ++phase_.pe_offset[s.pe + 1];
  for (int p = 0; p < pe_count_; ++p) phase_.pe_offset[p + 1] += phase_.pe_offset[p];
  Phase out = std::move(phase_);
  phase_ = Phase{};
  return out;
}

void route_path(RouteTable& routes, int from, int to, int color) {
  const Grid& g = routes.grid;
  const int fx = g.x_of(from), fy = g.y_of(from), tx = g.x_of(to), ty = g.y_of(to);
  if (from == to || (fx != tx && fy != ty))
    throw std::logic_error("route_path: endpoints must share a row or column");
  const Port dir = fx < tx ? East : fx > tx ? West : fy < ty ? South : North;
  routes.add(from, color, Ramp, port_bit(dir));
  for (int pe = g.neighbour(from, dir); pe != to; pe = g.neighbour(pe, dir))
    routes.add(pe, color, opposite(dir), port_bit(dir));
  routes.add(to, color, opposite(dir), port_bit(Ramp));
}

}  // namespace wmd::fabric
