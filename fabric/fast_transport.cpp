// Fast transport: the schedule's delivery as plain array arithmetic over logical coordinates.
#include "fabric/fast_transport.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <vector>

#include "base/error.hpp"
#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {
namespace {

// Signed offset from a to b along ring r: wrapped to the nearest image when periodic.
int ring_offset(const RingMap& r, int a, int b) {
  int d = b - a;
  if (r.wrap) {
    d = ((d % r.n) + r.n) % r.n;
    if (d > r.n / 2) d -= r.n;
  }
  return d;
}

}  // namespace

FastTransport::FastTransport(const ScheduleSpec& spec, const HardwareSpec& hw)
    : spec_(spec), map_(spec.grid, spec.wrap), cost_(model_schedule(spec, hw)) {
  switch (spec.kind) {
    case ScheduleKind::WindowMulticast:
      slots_per_pe_ = (2 * spec.b + 1) * (2 * spec.b + 1) * spec.words;
      break;
    case ScheduleKind::NeighbourSwap:
      slots_per_pe_ = 4 * spec.words;
      break;
    case ScheduleKind::Reduction:
      slots_per_pe_ = spec.words;
      break;
  }
  if (spec.kind == ScheduleKind::WindowMulticast) {
    row_of_.resize(spec.grid.size());
    for (int p = 0; p < spec.grid.size(); ++p) row_of_[p] = p / spec.grid.width;
  }
}

int FastTransport::offset_pe(int dst, int dx, int dy) const {
  const Grid& g = spec_.grid;
  const int i = map_.x.step(dst % g.width, dx), j = map_.y.step(dst / g.width, dy);
  return (i < 0 || j < 0) ? -1 : j * g.width + i;
}

bool FastTransport::covers(int src, int dst) const {
  const Grid& g = spec_.grid;
  if (src == dst || src < 0 || dst < 0 || src >= g.size() || dst >= g.size()) return false;
  const int dx = ring_offset(map_.x, dst % g.width, src % g.width);
  const int dy = ring_offset(map_.y, dst / g.width, src / g.width);
  switch (spec_.kind) {
    case ScheduleKind::WindowMulticast:
      return std::abs(dx) <= spec_.b && std::abs(dy) <= spec_.b;
    case ScheduleKind::NeighbourSwap:
      return std::abs(dx) + std::abs(dy) == 1;
    case ScheduleKind::Reduction:
      return false;
  }
  return false;
}

void FastTransport::deliver_all(const std::uint32_t* payload, std::uint32_t* out) {
  if (spec_.kind == ScheduleKind::Reduction)
    throw RunError("fast transport: a reduction delivers with reduce()");
  const int n = spec_.grid.size(), P = spec_.words, b = spec_.b;
  for (int d = 0; d < n; ++d) {
    std::uint32_t* o = out + static_cast<std::size_t>(d) * slots_per_pe_;
    auto copy = [&](int src, int slot0) {
      for (int w = 0; w < P; ++w)
        o[slot0 + w] = src < 0 ? 0u : payload[static_cast<std::size_t>(src) * P + w];
    };
    if (spec_.kind == ScheduleKind::WindowMulticast) {
      for (int dy = -b; dy <= b; ++dy)
        for (int dx = -b; dx <= b; ++dx) copy(offset_pe(d, dx, dy), window_slot(b, P, dx, dy, 0));
    } else {
      copy(offset_pe(d, -1, 0), FromMinusX * P);
      copy(offset_pe(d, +1, 0), FromPlusX * P);
      copy(offset_pe(d, 0, -1), FromMinusY * P);
      copy(offset_pe(d, 0, +1), FromPlusY * P);
    }
  }
  charged_ += cost_.cycles;
}

void FastTransport::deliver_window_range(int d_begin, int d_end, const std::uint32_t* payload,
                                         std::uint32_t* out) const {
  if (spec_.kind != ScheduleKind::WindowMulticast)
    throw RunError("fast transport: deliver_window_range needs a window multicast");
  const Grid& g = spec_.grid;
  const int P = spec_.words, b = spec_.b, side = 2 * b + 1;
  std::vector<int> cols(side);
  for (int d = d_begin; d < d_end; ++d) {
    std::uint32_t* o = out + static_cast<std::size_t>(d - d_begin) * slots_per_pe_;
    const int x = d % g.width, y = d / g.width;
    for (int dx = -b; dx <= b; ++dx) cols[dx + b] = map_.x.step(x, dx);
    for (int dy = -b; dy <= b; ++dy) {
      const int j = map_.y.step(y, dy);
      std::uint32_t* row = o + static_cast<std::size_t>(dy + b) * side * P;
      for (int c = 0; c < side; ++c) {
        std::uint32_t* slot = row + static_cast<std::size_t>(c) * P;
        if (j < 0 || cols[c] < 0) {
          for (int w = 0; w < P; ++w) slot[w] = 0u;
        } else {
          const std::uint32_t* src = payload + (static_cast<std::size_t>(j) * g.width + cols[c]) * P;
          for (int w = 0; w < P; ++w) slot[w] = src[w];
        }
      }
    }
  }
}

void FastTransport::deliver_requested(const std::int32_t* offsets, const std::int32_t* sources,
                                      const std::uint32_t* payload, std::uint32_t* out) {
  deliver_requested_range(0, spec_.grid.size(), offsets, sources, payload,
                          out - static_cast<std::size_t>(offsets[0]) * spec_.words);
  charged_ += cost_.cycles;
}

void FastTransport::deliver_requested_range(int d_begin, int d_end, const std::int32_t* offsets,
                                            const std::int32_t* sources, const std::uint32_t* payload,
                                            std::uint32_t* out) {
  if (spec_.kind == ScheduleKind::Reduction)
    throw RunError("fast transport: a reduction delivers with reduce()");
  const Grid& g = spec_.grid;
  const int P = spec_.words;
  const std::int32_t k0 = offsets[0];
  const bool window = spec_.kind == ScheduleKind::WindowMulticast;
  const int n = g.size(), b = spec_.b;
  for (int d = d_begin; d < d_end; ++d) {
    const int dxp = d % g.width, dyp = d / g.width;
    for (std::int32_t k = offsets[d - d_begin]; k < offsets[d - d_begin + 1]; ++k) {
      const int s = sources[k];
      // Window coverage without a division per request: the source's row is within b (or wraps), then its
      // column; anything unusual goes through covers().
      bool ok = false;
      if (window && s >= 0 && s < n && s != d) {
        int ddy = row_of_[s] - dyp;
        int ddx = s - (dyp + ddy) * g.width - dxp;
        if (ddy < 0) ddy = -ddy;
        if (ddx < 0) ddx = -ddx;
        if (spec_.wrap) {
          ddy = ddy < g.height - ddy ? ddy : g.height - ddy;
          ddx = ddx < g.width - ddx ? ddx : g.width - ddx;
        }
        ok = ddx <= b && ddy <= b;
      } else {
        ok = covers(s, d);
      }
      if (!ok)
        throw RunError(fmt::format(
            "fast transport: logical PE ({},{}) asked for the payload of PE ({},{}), which the {} schedule "
            "(b = {}, {}) does not bring it",
            d % g.width, d / g.width, s >= 0 ? s % g.width : s, s >= 0 ? s / g.width : s,
            spec_.kind == ScheduleKind::WindowMulticast ? "window multicast" : "neighbour swap", spec_.b,
            spec_.wrap ? "periodic" : "not periodic"));
      const std::uint32_t* src = payload + static_cast<std::size_t>(s) * P;
      std::uint32_t* dst = out + static_cast<std::size_t>(k - k0) * P;
      for (int w = 0; w < P; ++w) dst[w] = src[w];
    }
  }
}

void FastTransport::reduce(const std::uint32_t* values, std::uint32_t* result) {
  if (spec_.kind != ScheduleKind::Reduction)
    throw RunError("fast transport: reduce() needs a reduction schedule");
  // Same folds as build_reduction, on physical positions: chains fold base (own) with what came in.
  const Grid& g = spec_.grid;
  const int P = spec_.words, cx = reduction_root_x(g), cy = reduction_root_y(g);
  const ReduceOp op = spec_.op;
  auto own = [&](int x, int y, int w) {
    return values[static_cast<std::size_t>(map_.logical_pe(g.id(x, y))) * P + w];
  };
  std::vector<std::uint32_t> row(g.height);
  for (int w = 0; w < P; ++w) {
    for (int y = 0; y < g.height; ++y) {
      std::uint32_t v = own(cx, y, w);
      if (cx > 0) {
        std::uint32_t acc = own(0, y, w);
        for (int x = 1; x < cx; ++x) acc = combine_words(op, own(x, y, w), acc);
        v = combine_words(op, v, acc);
      }
      if (cx < g.width - 1) {
        std::uint32_t acc = own(g.width - 1, y, w);
        for (int x = g.width - 2; x > cx; --x) acc = combine_words(op, own(x, y, w), acc);
        v = combine_words(op, v, acc);
      }
      row[y] = v;
    }
    std::uint32_t v = row[cy];
    if (cy > 0) {
      std::uint32_t acc = row[0];
      for (int y = 1; y < cy; ++y) acc = combine_words(op, row[y], acc);
      v = combine_words(op, v, acc);
    }
    if (cy < g.height - 1) {
      std::uint32_t acc = row[g.height - 1];
      for (int y = g.height - 2; y > cy; --y) acc = combine_words(op, row[y], acc);
      v = combine_words(op, v, acc);
    }
    result[w] = v;
  }
  charged_ += cost_.cycles;
}

}  // namespace wmd::fabric
