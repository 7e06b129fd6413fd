// Fast transport: the schedule's delivery as plain array arithmetic over logical coordinates. The per-step
// copies of approved requests run over the vector width (Google Highway, one dispatch per call).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "fabric/fast_transport.cpp"
// Highway's per-target inclusion: foreach_target.h first, then highway.h.
// clang-format off
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// clang-format on
#include "fabric/fast_transport.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/error.hpp"
#include "base/simd_ops-inl.h"
#include "fabric/schedules/schedules.hpp"

HWY_BEFORE_NAMESPACE();
namespace wmd::fabric::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace ws = wmd::simd::HWY_NAMESPACE;

// Requests [k0, k1) of 3-word payloads into planes ox, oy, oz (request k at index k − k0). Lanes requests at
// a time: each source's words loaded as one 16-byte row (its three words and the next PE's first) and the
// rows transposed in registers, which is cheaper than three hardware gathers. The last PE's row would run
// past the payload: its words come from a padded copy.
void GatherPlanes3(const std::int32_t* sources, std::int32_t k0, std::int32_t k1,
                   const std::uint32_t* payload, int npe, std::uint32_t* ox, std::uint32_t* oy,
                   std::uint32_t* oz) {
  const hn::ScalableTag<float> d;
  constexpr int N = static_cast<int>(ws::kLanes<float>);
  const float* words = reinterpret_cast<const float*>(payload);
  float last[4] = {0, 0, 0, 0};
  if (npe > 0) std::memcpy(last, words + 3 * static_cast<std::size_t>(npe - 1), 3 * sizeof(float));
  std::int32_t k = k0;
  if constexpr (N >= 4) {
    float* out[3] = {reinterpret_cast<float*>(ox), reinterpret_cast<float*>(oy),
                     reinterpret_cast<float*>(oz)};
    for (; k + N <= k1; k += N) {
      const float* row[N];
      for (int l = 0; l < N; ++l) {
        const int s = sources[k + l];
        row[l] = s == npe - 1 ? last : words + 3 * static_cast<std::size_t>(s);
      }
      hn::Vec<decltype(d)> c[4];
      ws::Transpose4(d, row, c);
      for (int a = 0; a < 3; ++a) hn::StoreU(c[a], d, out[a] + (k - k0));
    }
  }
  for (; k < k1; ++k) {
    const std::uint32_t* src = payload + static_cast<std::size_t>(sources[k]) * 3;
    ox[k - k0] = src[0], oy[k - k0] = src[1], oz[k - k0] = src[2];
  }
}

// Requests [k0, k1) of 1-word payloads (F'): one hardware gather per Lanes requests where the target has
// them, word by word otherwise.
void Gather1(const std::int32_t* sources, std::int32_t k0, std::int32_t k1, const std::uint32_t* payload,
             std::uint32_t* out) {
  const hn::ScalableTag<std::int32_t> d;
  constexpr int N = static_cast<int>(ws::kLanes<std::int32_t>);
  const std::int32_t* base = reinterpret_cast<const std::int32_t*>(payload);
  std::int32_t k = k0;
  for (; k + N <= k1; k += N)
    hn::StoreU(hn::GatherIndex(d, base, hn::LoadU(d, sources + k)), d,
               reinterpret_cast<std::int32_t*>(out) + (k - k0));
  for (; k < k1; ++k) out[k - k0] = payload[sources[k]];
}

}  // namespace wmd::fabric::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wmd::fabric {

HWY_EXPORT(GatherPlanes3);
HWY_EXPORT(Gather1);

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

void FastTransport::check_request(int d, int s) const {
  const Grid& g = spec_.grid;
  const int n = g.size();
  // Window coverage without a division per request: the source's row is within b (or wraps), then its
  // column; anything unusual goes through covers().
  bool ok = false;
  if (spec_.kind == ScheduleKind::WindowMulticast && s >= 0 && s < n && s != d) {
    const int dxp = d % g.width, dyp = d / g.width;
    int ddy = row_of_[s] - dyp;
    int ddx = s - (dyp + ddy) * g.width - dxp;
    if (ddy < 0) ddy = -ddy;
    if (ddx < 0) ddx = -ddx;
    if (spec_.wrap) {
      ddy = ddy < g.height - ddy ? ddy : g.height - ddy;
      ddx = ddx < g.width - ddx ? ddx : g.width - ddx;
    }
    ok = ddx <= spec_.b && ddy <= spec_.b;
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
}

void FastTransport::deliver_requested_range(int d_begin, int d_end, const std::int32_t* offsets,
                                            const std::int32_t* sources, const std::uint32_t* payload,
                                            std::uint32_t* out) {
  if (spec_.kind == ScheduleKind::Reduction)
    throw RunError("fast transport: a reduction delivers with reduce()");
  const int P = spec_.words;
  const std::int32_t k0 = offsets[0];
  for (int d = d_begin; d < d_end; ++d) {
    for (std::int32_t k = offsets[d - d_begin]; k < offsets[d - d_begin + 1]; ++k) {
      const int s = sources[k];
      check_request(d, s);
      const std::uint32_t* src = payload + static_cast<std::size_t>(s) * P;
      std::uint32_t* dst = out + static_cast<std::size_t>(k - k0) * P;
      for (int w = 0; w < P; ++w) dst[w] = src[w];
    }
  }
}

void FastTransport::approve_requests(int d_begin, int d_end, const std::int32_t* offsets,
                                     const std::int32_t* sources) {
  if (spec_.kind == ScheduleKind::Reduction)
    throw RunError("fast transport: a reduction delivers with reduce()");
  if (d_begin < 0 || d_end > spec_.grid.size() || d_begin > d_end)
    throw RunError(fmt::format("fast transport: destinations [{}, {}) asked for on a grid of {} PEs", d_begin,
                               d_end, spec_.grid.size()));
  approved_end_ = -1;
  for (int d = d_begin; d < d_end; ++d)
    for (std::int32_t k = offsets[d - d_begin]; k < offsets[d - d_begin + 1]; ++k)
      check_request(d, sources[k]);
  approved_offsets_ = offsets, approved_sources_ = sources;
  approved_begin_ = d_begin, approved_end_ = d_end;
}

void FastTransport::deliver_approved_range(int d_begin, int d_end, const std::int32_t* offsets,
                                           const std::int32_t* sources, const std::uint32_t* payload,
                                           std::uint32_t* out, std::size_t plane_stride) const {
  // The requests must be the approved arrays' own entries: the range's offsets point into them.
  if (sources != approved_sources_ || d_begin < approved_begin_ || d_end > approved_end_ || d_begin > d_end ||
      offsets != approved_offsets_ + (d_begin - approved_begin_))
    throw RunError("fast transport: these requests were not approved against the schedule's coverage");
  const int P = spec_.words;
  const std::int32_t k0 = offsets[0], k1 = offsets[d_end - d_begin];
  if (plane_stride > 0 && P == 3) {
    // The fp32 position payload (x, y, z): the common case.
    HWY_DYNAMIC_DISPATCH(GatherPlanes3)
    (sources, k0, k1, payload, spec_.grid.size(), out, out + plane_stride, out + 2 * plane_stride);
  } else if (plane_stride > 0) {
    for (std::int32_t k = k0; k < k1; ++k) {
      const std::uint32_t* src = payload + static_cast<std::size_t>(sources[k]) * P;
      for (int w = 0; w < P; ++w) out[w * plane_stride + static_cast<std::size_t>(k - k0)] = src[w];
    }
  } else if (P == 1) {
    HWY_DYNAMIC_DISPATCH(Gather1)(sources, k0, k1, payload, out);
  } else {
    for (std::int32_t k = k0; k < k1; ++k) {
      const std::uint32_t* src = payload + static_cast<std::size_t>(sources[k]) * P;
      std::uint32_t* dst = out + static_cast<std::size_t>(k - k0) * P;
      for (int w = 0; w < P; ++w) dst[w] = src[w];
    }
  }
}

void FastTransport::reduce(const std::uint32_t* values, std::uint32_t* result) {
  std::vector<std::uint32_t> rows(static_cast<std::size_t>(spec_.grid.height) * spec_.words);
  reduce_rows(values, 0, spec_.grid.height, rows.data());
  fold_rows(rows.data(), result);
}

void FastTransport::reduce_rows(const std::uint32_t* values, int row_begin, int row_end,
                                std::uint32_t* rows) const {
  if (spec_.kind != ScheduleKind::Reduction)
    throw RunError("fast transport: reduce() needs a reduction schedule");
  // Same folds as build_reduction, on physical positions: chains fold base (own) with what came in. A
  // physical row holds one logical row (the torus folds x and y separately).
  const Grid& g = spec_.grid;
  const int P = spec_.words, cx = reduction_root_x(g);
  const ReduceOp op = spec_.op;
  const std::size_t first = static_cast<std::size_t>(row_begin) * g.width;
  std::vector<std::size_t> at(g.width);  // offset of each physical column's PE in `values`
  for (int y = 0; y < g.height; ++y) {
    const int logical_row = map_.logical_pe(g.id(0, y)) / g.width;
    if (logical_row < row_begin || logical_row >= row_end) continue;
    for (int x = 0; x < g.width; ++x)
      at[x] = (static_cast<std::size_t>(map_.logical_pe(g.id(x, y))) - first) * P;
    auto own = [&](int x, int w) { return values[at[x] + w]; };
    for (int w = 0; w < P; ++w) {
      std::uint32_t v = own(cx, w);
      if (cx > 0) {
        std::uint32_t acc = own(0, w);
        for (int x = 1; x < cx; ++x) acc = combine_words(op, own(x, w), acc);
        v = combine_words(op, v, acc);
      }
      if (cx < g.width - 1) {
        std::uint32_t acc = own(g.width - 1, w);
        for (int x = g.width - 2; x > cx; --x) acc = combine_words(op, own(x, w), acc);
        v = combine_words(op, v, acc);
      }
      rows[static_cast<std::size_t>(y) * P + w] = v;
    }
  }
}

void FastTransport::fold_rows(const std::uint32_t* rows, std::uint32_t* result) {
  if (spec_.kind != ScheduleKind::Reduction)
    throw RunError("fast transport: reduce() needs a reduction schedule");
  const Grid& g = spec_.grid;
  const int P = spec_.words, cy = reduction_root_y(g);
  const ReduceOp op = spec_.op;
  auto row = [&](int y, int w) { return rows[static_cast<std::size_t>(y) * P + w]; };
  for (int w = 0; w < P; ++w) {
    std::uint32_t v = row(cy, w);
    if (cy > 0) {
      std::uint32_t acc = row(0, w);
      for (int y = 1; y < cy; ++y) acc = combine_words(op, row(y, w), acc);
      v = combine_words(op, v, acc);
    }
    if (cy < g.height - 1) {
      std::uint32_t acc = row(g.height - 1, w);
      for (int y = g.height - 2; y > cy; --y) acc = combine_words(op, row(y, w), acc);
      v = combine_words(op, v, acc);
    }
    result[w] = v;
  }
  charged_ += cost_.cycles;
}

}  // namespace wmd::fabric
#endif
